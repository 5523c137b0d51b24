/* Plays the ITT static part an application links (torch's itt wrapper, oneDNN): loads the
 * collector named by INTEL_LIBITTNOTIFY64, takes the "one function per name" route that an
 * exported __itt_api_version selects, and calls it as ittnotify.h's macros do (a call on a domain
 * goes through only when the domain's flags field is non-zero). Debian has no ittnotify static
 * library or headers, so the layouts are declared here from the public header's documentation. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct itt_domain {
    volatile int flags;
    const char* nameA;
    void* nameW;
    int extra1;
    void* extra2;
    struct itt_domain* next;
} itt_domain;
typedef struct itt_string {
    const char* strA;
    void* strW;
    int extra1;
    void* extra2;
    struct itt_string* next;
} itt_string;
typedef struct itt_id {
    unsigned long long d1, d2, d3;
} itt_id;

typedef itt_domain* (*domain_create_fn)(const char*);
typedef itt_string* (*string_create_fn)(const char*);
typedef void (*task_begin_fn)(const itt_domain*, itt_id, itt_id, itt_string*);
typedef void (*task_end_fn)(const itt_domain*);
typedef void (*marker_fn)(const itt_domain*, itt_id, itt_string*, int);
typedef int (*event_create_fn)(const char*, int);
typedef int (*event_start_fn)(int);

#define NEED(var, type, name)                                                                                \
    type var;                                                                                                \
    {                                                                                                        \
        void* sym_ = dlsym(lib, name);                                                                       \
        memcpy(&var, &sym_, sizeof var);                                                                     \
    }                                                                                                        \
    if (!var) {                                                                                              \
        fprintf(stderr, "missing %s\n", name);                                                               \
        return 1;                                                                                            \
    }

int main(void)
{
    const char* path = getenv("INTEL_LIBITTNOTIFY64");
    if (!path) return 2;
    void* lib = dlopen(path, RTLD_LAZY);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    if (!dlsym(lib, "__itt_api_version")) return 3; /* would fall back to the legacy groups */
    NEED(domain_create, domain_create_fn, "__itt_domain_create");
    NEED(string_create, string_create_fn, "__itt_string_handle_create");
    NEED(task_begin, task_begin_fn, "__itt_task_begin");
    NEED(task_end, task_end_fn, "__itt_task_end");
    NEED(marker, marker_fn, "__itt_marker");
    NEED(event_create, event_create_fn, "__itt_event_create");
    NEED(event_start, event_start_fn, "__itt_event_start");

    itt_domain* d = domain_create("PyTorch");
    if (!d || !d->flags || strcmp(d->nameA, "PyTorch") != 0) return 4;
    itt_id null = {0, 0, 0};
    itt_string* step = string_create("itt step");
    itt_string* op = string_create("aten::mm");
    if (string_create("itt step") != step) return 5; /* handles are unique per string */
    if (d->flags) task_begin(d, null, null, step);
    if (d->flags) task_begin(d, null, null, op);
    if (d->flags) task_end(d);
    if (d->flags) marker(d, null, string_create("itt marker"), 2);
    if (d->flags) task_end(d);
    int ev = event_create("itt mark", 8);
    if (ev == 0) return 6;
    event_start(ev);
    return 0;
}
