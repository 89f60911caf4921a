"""MapAllocator: storage memory that is a shared-memory file mapped into the process.

Mirrors `aten/src/ATen/MapAllocator.cpp` (MapAllocator, RefcountedMapAllocator, the
ALLOCATOR_MAPPED_* flags, NewProcessWideShmHandle) and `torch/csrc/StorageSharing.cpp`'s
new_shm_fd_storage. POSIX shm_open(name) is open("/dev/shm" + name) on Linux, which is what
this does; the memory is an mmap with MAP_SHARED, so a second process mapping the same file
(or the same file descriptor, passed over a socket) sees the same bytes.

Note [Shared memory in the allocator's accounting]
A mapping is memory a tensor owns like any other: making one reports an allocation to the
profiler (a `[memory]` instant with the CPU's running total) and its DataPtr's deleter, close(),
reports the free before it unmaps. So `share_memory_()` shows in a trace as the free of the old
block and the allocation of the mapped one, and the CPU total stays exact. The emulated CUDA
allocator's statistics never see any of it.
"""

from __future__ import annotations

import itertools
import os
import struct

import numpy as np

from tensortrace.c10.allocator import DataPtr
from tensortrace.c10.cpu_allocator import address_of, profiledCPUMemoryReporter
from tensortrace.c10.device import CPU
from tensortrace.c10.exception import torchCheckFail
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/MapAllocator.cpp"

ALLOCATOR_MAPPED_SHARED = 1
ALLOCATOR_MAPPED_SHAREDMEM = 2
ALLOCATOR_MAPPED_EXCLUSIVE = 4
ALLOCATOR_MAPPED_NOCREATE = 8
ALLOCATOR_MAPPED_KEEPFD = 16
ALLOCATOR_MAPPED_FROMFD = 32
ALLOCATOR_MAPPED_UNLINK = 64

# RefcountedMapAllocator keeps its count in the first bytes of the mapping (MapInfo); the data
# starts at map_alloc_alignment, as in torch
map_alloc_alignment = 64
SHM_DIR = "/dev/shm"

_handle_counter = itertools.count()

# Note [Shared memory's modules imported on first use]
# fcntl, mmap, random and signal (two extension modules, and signal's enums) are imported by
# the functions that share memory, not at `import tensortrace`, which never needs them.


def NewProcessWideShmHandle() -> str:
    """A shm name no other process uses: /torch_<pid>_<random>_<counter>."""
    import random  # Note [Shared memory's modules imported on first use]

    return f"/torch_{os.getpid()}_{random.getrandbits(31)}_{next(_handle_counter)}"


class MapAllocator:
    """One mapping of a shared-memory file: its name, flags, fd (with KEEPFD) and the bytes."""

    @traced("allocator", "at::MapAllocator::MapAllocator", SOURCE)
    def __init__(self, filename: str, flags: int, size: int, fd: int = -1) -> None:
        self.filename_ = filename
        self.flags_ = flags
        self.fd_ = -1
        self.closed_ = False
        # a name that is unlinked at once must not outlive a process killed in between (a
        # DataLoader worker is terminated at its iterator's shutdown while it may be making a
        # batch's storage): termination waits until the name is gone
        blocked = bool(flags & ALLOCATOR_MAPPED_UNLINK) and not flags & ALLOCATOR_MAPPED_FROMFD
        if blocked:
            import signal  # Note [Shared memory's modules imported on first use]

            terminating = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
            old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, terminating)
        try:
            self._open_and_map(filename, flags, size, fd)
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        self.base_ = (
            np.frombuffer(self.map_, dtype=np.uint8) if self.map_ else np.empty(0, np.uint8)
        )
        self.data_ = self.base_[self.data_offset() :]
        profiledCPUMemoryReporter().New(self.data(), self.data_.size)

    def _open_and_map(self, filename: str, flags: int, size: int, fd: int) -> None:
        """shm_open (or the given fd), size the object, mmap it, and unlink the name if asked."""
        if flags & ALLOCATOR_MAPPED_FROMFD:
            fd_ = fd
        else:
            oflag = os.O_RDWR | (0 if flags & ALLOCATOR_MAPPED_NOCREATE else os.O_CREAT)
            if flags & ALLOCATOR_MAPPED_EXCLUSIVE:
                oflag |= os.O_EXCL
            try:
                fd_ = os.open(SHM_DIR + filename, oflag, 0o600)
            except OSError as e:
                torchCheckFail(
                    "unable to open shared memory object <",
                    filename,
                    "> in read-write mode: ",
                    e.strerror,
                    " (",
                    e.errno,
                    ")",
                )
        import mmap  # Note [Shared memory's modules imported on first use]

        try:
            if flags & ALLOCATOR_MAPPED_NOCREATE or flags & ALLOCATOR_MAPPED_FROMFD:
                size = os.fstat(fd_).st_size  # an existing object: map all of it
            else:
                os.ftruncate(fd_, size)
            # mmap cannot map zero bytes: an empty storage is shared with nothing mapped
            self.map_ = (
                mmap.mmap(fd_, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
                if size
                else None
            )
        except BaseException:
            if not flags & ALLOCATOR_MAPPED_FROMFD:
                os.close(fd_)
                if not flags & ALLOCATOR_MAPPED_NOCREATE:
                    os.unlink(SHM_DIR + filename)  # made here: not left behind
            raise
        self.size_ = size
        if flags & ALLOCATOR_MAPPED_KEEPFD:
            self.fd_ = fd_
        elif not flags & ALLOCATOR_MAPPED_FROMFD:
            os.close(fd_)
        if flags & ALLOCATOR_MAPPED_UNLINK:
            # the name goes now; the memory stays while a mapping or an fd of it lives
            os.unlink(SHM_DIR + filename)

    def data(self) -> int:
        """The address of the first byte a storage sees (0 when nothing is mapped)."""
        return address_of(self.data_) if self.data_.size else 0

    def data_offset(self) -> int:
        return 0

    def fd(self) -> int:
        return self.fd_

    def filename(self) -> str:
        return self.filename_

    def size(self) -> int:
        """The bytes a storage sees (the mapping minus a RefcountedMapAllocator's header)."""
        return int(self.data_.size)

    @traced("allocator", "at::MapAllocator::close", SOURCE)
    def close(self) -> None:
        """The DataPtr's deleter: report the free, close the kept fd, unmap."""
        if self.closed_:
            return
        self.closed_ = True
        profiledCPUMemoryReporter().Delete(self.data())
        if self.fd_ != -1:
            os.close(self.fd_)
            self.fd_ = -1
        self._release_mapping()

    def _release_mapping(self) -> None:
        # munmap now if no NumPy view of the bytes outlives the storage; otherwise the mapping
        # goes with the last view (mmap refuses to close while its buffer is exported)
        self.data_ = self.base_ = None  # type: ignore[assignment]
        if self.map_ is not None:
            try:
                self.map_.close()
            except BufferError:
                pass

    def deleteMapAllocator(self, ctx: np.ndarray | None) -> None:
        """The DataPtr's deleter (torch's deleteMapAllocator, bound to its mapping here: the
        DataPtr's context is the NumPy array of the bytes, which kernels read)."""
        self.close()

    @staticmethod
    def fromDataPtr(data_ptr: DataPtr) -> MapAllocator | None:
        """The mapping behind a DataPtr, or None (DataPtr::cast_context<MapAllocator>)."""
        owner = getattr(data_ptr.deleter, "__self__", None)
        return owner if isinstance(owner, MapAllocator) else None


class RefcountedMapAllocator(MapAllocator):
    """A named mapping whose first bytes count the processes that map it; the last to close
    unlinks the name (what the file_system strategy uses; torch's THManagedMapAllocator also
    tells torch_shm_manager, which unlinks after a crash: there is no manager here)."""

    @traced("allocator", "at::RefcountedMapAllocator::RefcountedMapAllocator", SOURCE)
    def __init__(self, filename: str, flags: int, size: int) -> None:
        create = not flags & ALLOCATOR_MAPPED_NOCREATE
        super().__init__(filename, flags | ALLOCATOR_MAPPED_KEEPFD, size + map_alloc_alignment)
        if create:
            self._set_count(1)
        else:
            self.incref()

    def data_offset(self) -> int:
        return map_alloc_alignment

    def _locked_add(self, delta: int) -> int:
        # MapInfo's refcount is an atomic int in torch; an fcntl lock on the file does its job
        import fcntl  # Note [Shared memory's modules imported on first use]

        assert self.map_ is not None  # the header alone makes the mapping non-empty
        fcntl.lockf(self.fd_, fcntl.LOCK_EX)
        try:
            count = struct.unpack_from("i", self.map_, 0)[0] + delta
            struct.pack_into("i", self.map_, 0, count)
        finally:
            fcntl.lockf(self.fd_, fcntl.LOCK_UN)
        return int(count)

    def _set_count(self, count: int) -> None:
        assert self.map_ is not None
        struct.pack_into("i", self.map_, 0, count)

    def incref(self) -> None:
        self._locked_add(1)

    def decref(self) -> int:
        """One reference fewer; the name is unlinked at zero. Returns the count left."""
        count = self._locked_add(-1)
        if count == 0:
            try:
                os.unlink(SHM_DIR + self.filename_)
            except FileNotFoundError:
                pass
        return count

    @traced("allocator", "at::RefcountedMapAllocator::close", SOURCE)
    def close(self) -> None:
        if self.closed_:
            return
        self.decref()
        super().close()


def makeDataPtr(ctx: MapAllocator) -> DataPtr:
    """MapAllocator::makeDataPtr: a CPU DataPtr whose deleter is the mapping's close()."""
    return DataPtr(ctx.data(), ctx.data_, ctx.deleteMapAllocator, CPU)


__all__ = [
    "ALLOCATOR_MAPPED_EXCLUSIVE",
    "ALLOCATOR_MAPPED_FROMFD",
    "ALLOCATOR_MAPPED_KEEPFD",
    "ALLOCATOR_MAPPED_NOCREATE",
    "ALLOCATOR_MAPPED_SHAREDMEM",
    "ALLOCATOR_MAPPED_UNLINK",
    "MapAllocator",
    "NewProcessWideShmHandle",
    "RefcountedMapAllocator",
    "makeDataPtr",
]
