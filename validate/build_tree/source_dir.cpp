// The source tree this build was made from, for the programs built in it (the CLI, the tests):
// their golden/ by default. Its own library (validate/CMakeLists.txt), linked only in the build
// tree, so the installed wgslvk::validate names no path of the build machine.
extern "C" const char* wgslvk_build_source_dir() { return WGSLVK_SOURCE_DIR; }
