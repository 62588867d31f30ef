# scripts/steps.sh: the step runner shared by the test scripts (sourced).
# step NAME COMMAND...: runs COMMAND, prints "=== NAME: ok|FAILED (N s)" and
# counts it; a failed step does not stop the ones after it.
# steps_summary LABEL: prints the failed steps and "LABEL: N passed, M failed",
# and returns non-zero if any step failed.
passed=0
failed=0
failed_steps=()
step() {
  local name=$1
  shift
  echo
  echo "=== $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
    echo "=== $name: FAILED ($((SECONDS - start)) s)"
  fi
}

steps_summary() {
  echo
  if [ "$failed" -gt 0 ]; then
    printf 'failed: %s\n' "${failed_steps[@]}"
  fi
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
