"""Builds nvprof SQLite databases shaped like `nvprof --profile-from-start off -o trace.prof` around a
PyTorch run under torch.autograd.profiler.emit_nvtx(): the tables torch's parse_nvprof_trace reads
(StringTable, CUPTI_ACTIVITY_KIND_MARKER, _RUNTIME, _CONCURRENT_KERNEL), plus MEMCPY and MEMSET,
with nvprof's usual columns. No published nvprof file with emit_nvtx ranges was found, so the run
is simulated from a known event list; times are nanoseconds, as nvprof writes them.

Usage: python3 nvprof_db.py OUT.nvvp
"""
import sqlite3
import struct
import sys

SCHEMA = """
CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);
CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, flags INT NOT NULL,
  timestamp INT NOT NULL, id INT NOT NULL, objectKind INT NOT NULL, objectId BLOB NOT NULL,
  name INT NOT NULL, domain INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL,
  correlationId INT NOT NULL, returnValue INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY AUTOINCREMENT,
  cacheConfig BLOB NOT NULL, sharedMemoryConfig INT NOT NULL, registersPerThread INT NOT NULL,
  partitionedGlobalCacheRequested INT NOT NULL, partitionedGlobalCacheExecuted INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, completed INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, gridX INT NOT NULL, gridY INT NOT NULL,
  gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL, blockZ INT NOT NULL,
  staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL, localMemoryPerThread INT NOT NULL,
  localMemoryTotal INT NOT NULL, correlationId INT NOT NULL, gridId INT NOT NULL, name INT NOT NULL,
  queued INT NOT NULL, submitted INT NOT NULL, launchType INT NOT NULL,
  isSharedMemoryCarveoutRequested INT NOT NULL, sharedMemoryCarveoutRequested INT NOT NULL,
  padding INT NOT NULL, sharedMemoryExecuted INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT NOT NULL,
  srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL, bytes INT NOT NULL, start INT NOT NULL,
  end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
  correlationId INT NOT NULL, runtimeCorrelationId INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value INT NOT NULL,
  bytes INT NOT NULL, start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL,
  streamId INT NOT NULL, correlationId INT NOT NULL, flags INT NOT NULL, memoryKind INT NOT NULL);
"""

PID = 31337
MAIN_TID = 1804289383
BACKWARD_TID = 846930886
# A mangled kernel name, as CUPTI reports it; Kinetoscope and torch both demangle it.
FILL = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEvviT0_T1_"
GEMM = "volta_sgemm_64x32_sliced1x4_nn"
RELU = "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_21clamp_min_kernel_cudaERNS_18TensorIteratorBaseERKN3c106ScalarEENKUlvE_clEvENKUlvE5_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_"


class Run:
    def __init__(self, db):
        self.db = db
        self.t = 1_690_000_000_000_000_000
        self.gpu_t = self.t
        self.marker_id = 0
        self.correlation = 0
        self.strings = {}
        self.tid = MAIN_TID

    def string(self, s):
        if s not in self.strings:
            cur = self.db.execute("INSERT INTO StringTable(value) VALUES (?)", (s,))
            self.strings[s] = cur.lastrowid
        return self.strings[s]

    def tick(self, ns):
        self.t += ns

    def marker(self, flags, ts, mid, name):
        obj = struct.pack("<III", PID, self.tid, 0)
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, objectId,"
                        " name, domain) VALUES (?, ?, ?, 2, ?, ?, 0)", (flags, ts, mid, obj, name))

    def range(self, name, body=None, pre=1300, post=900):
        self.marker_id += 1
        mid = self.marker_id
        self.marker(2, self.t, mid, self.string(name))  # 2: CUPTI_ACTIVITY_FLAG_MARKER_START
        self.tick(pre)
        if body:
            body()
        self.tick(post)
        self.marker(4, self.t, mid, 0)  # 4: CUPTI_ACTIVITY_FLAG_MARKER_END

    def runtime(self, cbid, dur):
        self.correlation += 1
        start = self.t
        self.tick(dur)
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, threadId,"
                        " correlationId, returnValue) VALUES (?, ?, ?, ?, ?, ?, 0)",
                        (cbid, start, self.t, PID, self.tid, self.correlation))
        self.tick(211)
        return start

    def launch(self, kernel, dur, stream=7):
        start = self.runtime(211, 4100)
        begin = max(self.gpu_t, start + 2500)
        self.gpu_t = begin + dur
        self.db.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(cacheConfig, sharedMemoryConfig,"
            " registersPerThread, partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted, start, end,"
            " completed, deviceId, contextId, streamId, gridX, gridY, gridZ, blockX, blockY, blockZ,"
            " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, correlationId,"
            " gridId, name, queued, submitted, launchType, isSharedMemoryCarveoutRequested,"
            " sharedMemoryCarveoutRequested, padding, sharedMemoryExecuted) VALUES (x'00', 1, 32, 0, 0, ?, ?,"
            " ?, 0, 1, ?, 4, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0)",
            (begin, begin + dur, begin + dur, stream, self.correlation, self.correlation, self.string(kernel)))

    def memcpy(self, kind, nbytes, dur):
        start = self.runtime(41, 9000)
        begin = max(self.gpu_t, start + 3000)
        self.gpu_t = begin + dur
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, flags, bytes,"
                        " start, end, deviceId, contextId, streamId, correlationId, runtimeCorrelationId)"
                        " VALUES (?, 1, 3, 0, ?, ?, ?, 0, 1, 7, ?, 0)",
                        (kind, nbytes, begin, begin + dur, self.correlation))

    def memset(self, nbytes, dur):
        start = self.runtime(51, 5000)
        begin = max(self.gpu_t, start + 2000)
        self.gpu_t = begin + dur
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(value, bytes, start, end, deviceId,"
                        " contextId, streamId, correlationId, flags, memoryKind) VALUES (0, ?, ?, ?, 0, 1, 7, ?,"
                        " 0, 3)", (nbytes, begin, begin + dur, self.correlation))


def simulate(run, steps=2):
    r = run
    seq = [0]

    def s(name):
        seq[0] += 1
        return "%s, seq = %d" % (name, seq[0])

    def linear(extra_bias_kernel):
        def body():
            r.range(s("aten::t"), lambda: r.range("aten::transpose", lambda: r.range("aten::as_strided")))
            r.range(s("aten::addmm"), lambda: r.launch(GEMM, 23_417))
            if extra_bias_kernel:
                # A launch in the parent itself, outside its children.
                r.launch(FILL, 1_913)
        r.range("aten::linear", body)

    for step in range(steps):
        r.tid = MAIN_TID
        # Host to device copy: aten::to → aten::_to_copy → aten::copy_ (memcpy, not a kernel).
        r.range(s("aten::to"), lambda: r.range("aten::_to_copy", lambda: r.range(
            "aten::copy_", lambda: r.memcpy(1, 4096, 1_517))))
        r.range("aten::zeros", lambda: r.range("aten::zero_", lambda: r.memset(2048, 733)))
        linear(step == 0)
        r.range(s("aten::relu"), lambda: r.range("aten::clamp_min", lambda: r.launch(RELU, 3_109 + step)))
        # Same-named parent and only child: torch folds the child in and keeps its kernels only.
        r.range("aten::contiguous", lambda: (r.launch(FILL, 977), r.range(
            "aten::contiguous", lambda: r.range("aten::clone", lambda: r.launch(FILL, 1_201)))))
        linear(False)
        r.range(s("aten::sum"), lambda: r.launch(FILL, 2_222))
        # A launch outside every range.
        r.tick(5_000)
        r.launch(FILL, 401)
        r.tick(20_000)
        # The backward pass, on the autograd engine's thread.
        r.tid = BACKWARD_TID
        r.range("autograd::engine::evaluate_function: AddmmBackward0", lambda: r.range(
            "AddmmBackward0, stashed seq = 3", lambda: r.range("aten::mm", lambda: r.launch(GEMM, 19_999))))
        r.range("autograd::engine::evaluate_function: ReluBackward0", lambda: r.range(
            "ReluBackward0, stashed seq = 5", lambda: r.range(
                "aten::threshold_backward", lambda: r.launch(RELU, 2_048))))
        r.tick(50_000)
    # A marker the run never closed (nvprof stopped first), and an instantaneous one: neither is
    # one of torch's ranges.
    r.tid = MAIN_TID
    r.marker_id += 1
    r.marker(2, r.t, r.marker_id, r.string("aten::empty"))
    r.marker_id += 1
    r.marker(1, r.t + 10, r.marker_id, r.string("checkpoint"))


def build(path, steps=2):
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    simulate(Run(db), steps)
    db.commit()
    db.close()


if __name__ == "__main__":
    build(sys.argv[1])
