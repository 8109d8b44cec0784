"""Evidence memory: what earlier claims' searches found, kept per entity and recalled for later claims."""

from factdebate.memory.guard import MemoryLeakError
from factdebate.memory.normalize import normalize_entity
from factdebate.memory.settings import MemorySettings
from factdebate.memory.store import Evidence, EvidenceMemory, MemoryFileError, MemoryHit, open_memory

__all__ = ["Evidence", "EvidenceMemory", "MemoryFileError", "MemoryHit", "MemoryLeakError", "MemorySettings",
           "normalize_entity", "open_memory"]
