"""`python -m pyfss`: shows which core was built."""

import json

import pyfss

print(f"pyfss {pyfss.__version__}")
print(json.dumps(pyfss.backend_info(), indent=2))
