"""`python -m ffn_calc`: the same as the `ffn-calc` console script."""

from ffn_calc.console import main

main()
