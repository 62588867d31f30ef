# scripts/steps.sh: the step runner shared by the test scripts (sourced).
# step NAME COMMAND...: runs COMMAND, prints "=== NAME: ok|FAILED (N s)" and
# counts it; a failed step does not stop the ones after it.
# step_time NAME SECONDS ok|FAILED [CPU]: records the time of work done
# outside `step` (an install run in the background, say) for the table.
# steps_summary LABEL: prints the failed steps, the time of every step (a
# table, so a run shows where the time goes: wall clock, and the CPU time of
# the processes it ran, which another load on the machine changes far less),
# and "LABEL: N passed, M failed", and returns non-zero if any step failed.
# A background job's CPU time counts in the step that waits for it.
# A failed step's last lines are printed again by steps_summary: CI shows only
# the end of the output, and the cause of a failure would otherwise scroll out
# of it (XFFI_FAILURE_TAIL lines, default 60).
passed=0
failed=0
failed_steps=()
failed_tails=()
timed_names=()
timed_seconds=()
timed_verdicts=()
timed_cpu=()
steps_started=$SECONDS

# children_cpu: sets cpu_now to the user+system CPU seconds of this shell's
# finished children so far, from the builtin `times`, which must run in this
# shell (in a subshell, as $(...) would make, it counts that one's children).
steps_cpu_file=$(mktemp)
children_cpu() {
  times >"$steps_cpu_file"
  read -r cpu_now < <(awk 'NR == 2 {
    n = 0
    for (i = 1; i <= 2; i++) { split($i, t, "m"); n += t[1] * 60 + t[2] }
    printf "%d\n", n
  }' "$steps_cpu_file")
}
children_cpu
steps_cpu_started=$cpu_now

step_time() {
  timed_names+=("$1")
  timed_seconds+=("$2")
  timed_verdicts+=("$3")
  timed_cpu+=("${4:--}")
}

step() {
  local name=$1
  shift
  echo
  echo "=== $name"
  local start=$SECONDS cpu_start log status
  children_cpu
  cpu_start=$cpu_now
  log=$(mktemp)
  # Process substitution, not a pipe: COMMAND runs in this shell, so what it
  # exports or installs stays visible to the steps after it.
  "$@" > >(tee "$log") 2>&1
  status=$?
  wait $! # tee has written everything before the verdict is printed
  children_cpu
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - start)) s)"
    step_time "$name" $((SECONDS - start)) ok $((cpu_now - cpu_start))
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
    failed_tails+=("$(tail -n "${XFFI_FAILURE_TAIL:-60}" "$log")")
    echo "=== $name: FAILED ($((SECONDS - start)) s)"
    step_time "$name" $((SECONDS - start)) FAILED $((cpu_now - cpu_start))
  fi
  rm -f "$log"
}

steps_summary() {
  echo
  local i
  for i in "${!failed_steps[@]}"; do
    echo "--- the last lines of the failed step \"${failed_steps[$i]}\":"
    printf '%s\n' "${failed_tails[$i]}"
    echo "---"
  done
  echo "--- $1: time per step (wall clock; CPU: user+system of what it ran)"
  printf '%7s %7s  %-6s  %s\n' "wall s" "CPU s" "" "step"
  for i in "${!timed_names[@]}"; do
    printf '%7s %7s  %-6s  %s\n' "${timed_seconds[$i]}" "${timed_cpu[$i]}" "${timed_verdicts[$i]}" "${timed_names[$i]}"
  done
  children_cpu
  printf '%7s %7s  %-6s  %s\n' $((SECONDS - steps_started)) $((cpu_now - steps_cpu_started)) "" "total"
  if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failed_steps[@]}"
  fi
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
