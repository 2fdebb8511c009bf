#!/usr/bin/env python3
"""Opens N HTTP/1.1 connections, sends one GET on each and never reads the response: peers that
stopped reading. Bounded: closes everything after --hold seconds. Usage:
  stall-clients.py HOST PORT PATH N --hold SECONDS"""
import socket, sys, time, argparse

ap = argparse.ArgumentParser()
ap.add_argument('host'); ap.add_argument('port', type=int); ap.add_argument('path'); ap.add_argument('n', type=int)
ap.add_argument('--hold', type=float, default=60)
ap.add_argument('--header', action='append', default=[])
a = ap.parse_args()
conns = []
for _ in range(a.n):
    s = socket.socket()
    # A small receive buffer so the server's send buffer fills quickly.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((a.host, a.port))
    extra = ''.join(h + '\r\n' for h in a.header)
    s.sendall(f'GET {a.path} HTTP/1.1\r\nHost: {a.host}:{a.port}\r\n{extra}\r\n'.encode())
    conns.append(s)
print(f'stall-clients: {len(conns)} connections open, not reading', flush=True)
time.sleep(a.hold)
for s in conns:
    s.close()
