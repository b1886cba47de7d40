# The escape battery (tests/escape/run.sh): every attempt, in every way of
# starting, as its header expects.
. "$TOP/tests/e2e/lib.sh"
bash "$TOP/tests/escape/run.sh"
