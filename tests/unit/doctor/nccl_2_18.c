/* An NCCL older than nccl-roce supports, as the doctor sees one: a libnccl.so.2 whose ncclGetVersion answers
   2.18.5 (21805, NCCL's encoding since 2.9). The doctor reads nothing else of an NCCL; the real 2.28.9 on this
   machine stands for every supported release. */
int ncclGetVersion(int* version) {
  *version = 21805;
  return 0; /* ncclSuccess */
}
