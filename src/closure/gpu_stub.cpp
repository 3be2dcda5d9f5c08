// The GPU entry points of a build without CUDA (ISOCHECK_HAVE_CUDA=0).
#include "closure/gpu_closure.h"  // gpu_config.h

#if !ISOCHECK_HAVE_CUDA
namespace isocheck {

bool gpu_built() { return false; }

std::vector<GpuDeviceInfo> gpu_devices(std::string* error) {
  if (error) *error = "this build has no CUDA support (configure with CUDA found, -DISOCHECK_CUDA=ON)";
  return {};
}

std::unique_ptr<SliceBackend> make_gpu_slice_backend(const GpuClosureOptions&) { return nullptr; }

}  // namespace isocheck
#endif
