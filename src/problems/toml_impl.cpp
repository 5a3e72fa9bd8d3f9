// toml++'s implementation, compiled once here (cmake/dependencies.cmake: ptxbench_tomlpp) rather than
// inline in every file that reads TOML: it is the bulk of toml++ and took the most time to build.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
