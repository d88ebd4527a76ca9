"""python -m ffn_calc"""

from ffn_calc.cli import main

main()
