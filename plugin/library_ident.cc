// Identifies the build inside the shared object itself: `strings libnccl-roce.so | grep nccl-roce-version`
// answers "which plugin is baked into this image" without loading it.
namespace {
__attribute__((used)) const char kLibraryIdent[] = "nccl-roce-version " NCCL_ROCE_VERSION;
}  // namespace
