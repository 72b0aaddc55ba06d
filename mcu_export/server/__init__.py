"""A warm server for `mcu-export export|run MODEL_SPEC` (issue 16): torch, torchao, Vela and matplotlib stay loaded
in one background process, and each command runs in a fresh child forked from it, so the edit-run loop no longer
pays ~6 s of imports and first-call set-up per command.

- `where`: the server's folder, its key (everything a loaded server depends on) and whether to use one.
- `wire`: the messages between a client and the server over a Unix socket (the client's stdin, stdout and stderr
  travel with the request, so the child writes straight to the user's terminal).
- `client`: send a command to a server, start one in the background, stop and list them.
- `daemon`: the server: warm up, accept, fork a worker per command, exit when idle.
- `worker`: the forked child: take on the client's descriptors, folder and environment, run the command.
- `warm`: the warm-up: the imports and one small int8 export with one thread (a fork after OpenMP has started
  its threads would hang in the child's first parallel op).
"""
