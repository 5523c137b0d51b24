# A hand-written live stream for the fault tests: connects to $KINETOSCOPE_ENDPOINT like a real
# target, sends a valid hello and one step, then breaks the protocol the way argv[1] says:
#   garbage    a frame header announcing 1 GiB
#   truncated  half of an events frame, then the connection closes
#   undefined  an events frame naming a string id that was never defined
# Run it with python3 -S so the bootstrap does not connect as well.
import os
import socket
import struct
import sys
import time

MAGIC = 0x564C534B


def frame(kind, payload):
    return struct.pack("<IHH", len(payload), kind, 0) + payload


def string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


mode = sys.argv[1]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(os.environ["KINETOSCOPE_ENDPOINT"])
now = mono_ns()
hello = struct.pack("<IHHIIqq", MAGIC, 1, 0, os.getpid(), os.getppid(), now, time.time_ns())
hello += string("host") + string("fake_target") + string("test") + string("{}")
sock.sendall(frame(1, hello))
# Step 0: 5 ms long, ending now.
sock.sendall(frame(6, struct.pack("<qqqQ", 0, now - 5000000, now, os.getpid())))
sock.sendall(frame(2, struct.pack("<I", 1) + struct.pack("<I", 7) + string("fake_range")))
record = struct.pack("<qBBhIQq", now - 4000000, 1, 0, 0, 7, 0, 0) + struct.pack("<qBBhIQq", now - 1000000, 2, 0, 0, 0, 0, 0)
sock.sendall(frame(4, struct.pack("<QI", os.getpid(), 2) + record))
time.sleep(0.2)
if mode == "garbage":
    sock.sendall(struct.pack("<IHH", 1 << 30, 4, 0) + b"\x00" * 64)
elif mode == "truncated":
    body = struct.pack("<QI", os.getpid(), 1) + struct.pack("<qBBhIQq", now, 1, 0, 0, 7, 0, 0)
    whole = frame(4, body)
    sock.sendall(whole[: len(whole) // 2])
elif mode == "undefined":
    body = struct.pack("<QI", os.getpid(), 1) + struct.pack("<qBBhIQq", mono_ns(), 3, 0, 0, 99, 0, 0)
    sock.sendall(frame(4, body))
print("sent", mode, flush=True)
time.sleep(0.5)
sock.close()
