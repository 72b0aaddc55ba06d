"""Arm Ethos-U NPUs: the delegate blob format (more of the ahead-of-time path arrives with the partitioner)."""
