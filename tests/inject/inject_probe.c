/* Loads libkinetoscope_inject.so into a plain process and calls the CUDA driver's entry point by
 * hand, as the driver would during cuInit. With no driver the library must return 1, say why GPU
 * collection is off, keep recording, and write its trace at exit. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
    if (argc < 2) return 2;
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    int (*init)(void) = 0;
    void* sym = dlsym(lib, "InitializeInjection");
    memcpy(&init, &sym, sizeof init);
    if (!init) return 3;
    if (init() != 1) return 4;
    if (init() != 1) return 5; /* a second cuInit in the process must be harmless too */
    return 0;
}
