// The object lookup behind the _dl_find_object stand-in of plugin/glibc_floor.cc, exposed so tests can compare
// it with glibc's own answer. See glibc_floor.cc for why the stand-in exists.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void* mapStart;    // lowest address of the object's PT_LOAD segments
  void* mapEnd;      // one past the highest
  void* ehFrameHdr;  // its PT_GNU_EH_FRAME (.eh_frame_hdr), or null when it has none
} NcclRoceFoundObject;

// 0 and *out filled when a loaded object maps `pc`; -1 otherwise.
int nccl_roce_find_object(void* pc, NcclRoceFoundObject* out);

#ifdef __cplusplus
}
#endif
