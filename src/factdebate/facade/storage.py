"""What the service keeps on disk, for the service (see facade/__init__.py): the data folder, the schema of
stored records, what a full disk is said as, and whether a process holding a lease still lives."""

from factdebate.core.schema import upgrade
from factdebate.core.storage_full import STORAGE, public_reason, storage_problem
from factdebate.util.paths import data_dir
from factdebate.util.processes import pid_alive

__all__ = ["STORAGE", "data_dir", "pid_alive", "public_reason", "storage_problem", "upgrade"]
