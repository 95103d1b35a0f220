/* An NCCL as the doctor sees one: a libnccl.so.2 whose ncclGetVersion answers NCCL_FAKE_VERSION (NCCL's encoding
   since 2.9: 23102 for 2.31.2), built once per release a test needs. The doctor reads nothing else of an NCCL. */
int ncclGetVersion(int* version) {
  *version = NCCL_FAKE_VERSION;
  return 0; /* ncclSuccess */
}
