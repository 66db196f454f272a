"""Host-side ownership and launch analysis (CT3xx, CT4xx) over Python's ast; never imports
user code.

`check_host(info, project)` analyzes every host scope of a parsed module: tensors, partitions and
lazy launches are followed through assignments, branches, loops and calls, and launches of known
kernels (of this module or, through `project`, of other project modules) are checked against
their signatures. `ownership_facts(info, project)` runs the same analysis for editors and returns
the ownership state of each tensor, partition and launch at every name that refers to one.
"""

from .check import OwnershipView, check_host, ownership_facts, ownership_view
from .facts import ApiSite, NameSite, OwnershipFact
from .project import ProjectIndex

__all__ = ["ApiSite", "NameSite", "OwnershipFact", "OwnershipView", "ProjectIndex", "check_host",
           "ownership_facts", "ownership_view"]
