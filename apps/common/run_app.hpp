// The outermost frame of every app: turns any error into one line on stderr and exit status 2.
//
// Library code throws (empl::Error, cxxopts' parse errors, std::bad_alloc); only here, at the top
// of main(), is it decided that the process ends.
#pragma once

#include <functional>

namespace empl {

int run_app(const char* app_name, int argc, char** argv,
            const std::function<int(int, char**)>& body);

}  // namespace empl
