"""Economics: the provider table and the traffic/cost model.

``providers`` turns stable prefix tokens into cached tokens under each
provider's rules; ``cost`` turns cached tokens into expected savings;
``speculation`` (imported on its own by `promptlint speculate`) is the
speculative decoding calculator.
"""

from .cost import FORMULA, SCOPES, CostEstimate, Traffic, estimate, warm_probability
from .providers import ModelSpec, cacheable, load_table, resolve, table_date

__all__ = [
    "FORMULA",
    "SCOPES",
    "CostEstimate",
    "ModelSpec",
    "Traffic",
    "cacheable",
    "estimate",
    "load_table",
    "resolve",
    "table_date",
    "warm_probability",
]
