"""The launch contract: one set of rules for `kernel(args)`, used by the checker and the runtime.

The checker feeds it what it proved about each argument statically (unknowns allowed: a rule
that needs an unknown fact stays silent); the runtime feeds it the concrete values. Both get the
same verdict: the same codes, messages and notes. The compiler owns it because both may import
the compiler, and neither may import the other.
"""

from .contract import LaunchContract, Locator, Verdict, contract_for
from .facts import ArgFacts, MoveFacts, describe_kind
from .moves import leased_diagnostic, moved_diagnostic
from .tiles import partition_tile_problem

__all__ = ["ArgFacts", "LaunchContract", "Locator", "MoveFacts", "Verdict", "contract_for",
           "describe_kind", "leased_diagnostic", "moved_diagnostic", "partition_tile_problem"]
