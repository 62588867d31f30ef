# scripts/steps.sh: the step runner shared by the test scripts (sourced).
# step NAME COMMAND...: runs COMMAND, prints "=== NAME: ok|FAILED (N s)" and
# counts it; a failed step does not stop the ones after it.
# step_time NAME SECONDS ok|FAILED: records the time of work done outside
# `step` (an install run in the background, say) for the table.
# steps_summary LABEL: prints the failed steps, the time of every step (a
# table, so a run shows where the time goes), and "LABEL: N passed, M failed",
# and returns non-zero if any step failed.
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
steps_started=$SECONDS

step_time() {
  timed_names+=("$1")
  timed_seconds+=("$2")
  timed_verdicts+=("$3")
}

step() {
  local name=$1
  shift
  echo
  echo "=== $name"
  local start=$SECONDS log status
  log=$(mktemp)
  # Process substitution, not a pipe: COMMAND runs in this shell, so what it
  # exports or installs stays visible to the steps after it.
  "$@" > >(tee "$log") 2>&1
  status=$?
  wait $! # tee has written everything before the verdict is printed
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - start)) s)"
    step_time "$name" $((SECONDS - start)) ok
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
    failed_tails+=("$(tail -n "${XFFI_FAILURE_TAIL:-60}" "$log")")
    echo "=== $name: FAILED ($((SECONDS - start)) s)"
    step_time "$name" $((SECONDS - start)) FAILED
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
  echo "--- $1: time per step (wall clock)"
  for i in "${!timed_names[@]}"; do
    printf '%6d s  %-6s  %s\n' "${timed_seconds[$i]}" "${timed_verdicts[$i]}" "${timed_names[$i]}"
  done
  printf '%6d s          %s\n' $((SECONDS - steps_started)) "total"
  if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failed_steps[@]}"
  fi
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
