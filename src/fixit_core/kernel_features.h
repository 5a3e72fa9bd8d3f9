// What a kernel's code uses, as feature words a repair note is retrieved by: the target
// instructions (wgmma, tma, tcgen05), the memory paths (shared_memory, cp_async, bulk_copy,
// ldmatrix, stmatrix), the synchronization (mbarrier, block_barrier, proxy_fence, cluster), older
// tensor paths (mma_sync), and launch styles (launch_ex). Found in the source with comments removed;
// a feature is a word, never a verdict.
#pragma once
#include <string>
#include <vector>

namespace ptxbench::fixit {

std::vector<std::string> kernel_features(const std::string& source);  // sorted, distinct

}  // namespace ptxbench::fixit
