# Minimal authoritative UDP responder for one SRV name whose TTL counts down 4,3,2,1 then is
# served "stale" as 0 twice, then fresh at 30 — what node-local-dns with serve_stale does.
import socket, struct, sys
TTLS = [4, 3, 2, 1, 0, 0, 30, 29]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 15360))
n = 0
def name(labels): return b''.join(bytes([len(l)]) + l.encode() for l in labels) + b'\0'
while True:
    data, addr = s.recvfrom(4096)
    qid = data[:2]; qdcount = struct.unpack('>H', data[4:6])[0]
    # question ends at first zero byte after header + 4 bytes
    end = data.index(b'\0', 12) + 5
    question = data[12:end]
    ttl = TTLS[n % len(TTLS)]; n += 1
    targets = ['10-42-1-7', '10-42-0-12']
    answers = b''
    for t in targets:
        tgt = name([t, 'linkerd-dst-headless', 'linkerd', 'svc', 'cluster', 'local'])
        rdata = struct.pack('>HHH', 0, 50, 8086) + tgt
        answers += b'\xc0\x0c' + struct.pack('>HHIH', 33, 1, ttl, len(rdata)) + rdata
    # flags: qr aa rd (copy rd) ; no recursion available
    rd = data[2] & 1
    flags = struct.pack('>BB', 0x84 | rd, 0x00)
    hdr = qid + flags + struct.pack('>HHHH', 1, len(targets), 0, 0)
    s.sendto(hdr + question + answers, addr)
