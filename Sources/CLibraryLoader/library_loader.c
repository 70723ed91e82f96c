#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include "library_loader.h"

static const char *open_and_resolve(noti_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return library->missing;
    for (const noti_symbol *symbol = library->symbols; symbol->name; symbol++) {
        *symbol->slot = dlsym(handle, symbol->name);
        if (!*symbol->slot) {
            snprintf(library->reason, sizeof library->reason, "%s lacks %s, which noti-play calls", library->soname, symbol->name);
            /* Nothing of it is used: it may go, and no slot keeps an address into it. */
            for (const noti_symbol *resolved = library->symbols; resolved != symbol; resolved++) *resolved->slot = NULL;
            dlclose(handle);
            return library->reason;
        }
    }
    return NULL;
}

const char *noti_library_load(noti_library *library) {
    /* A mutex rather than pthread_once: once-routines take no argument. Taken once per sound
     * opened through the library, never on a render thread. */
    pthread_mutex_lock(&library->lock);
    if (!library->tried) {
        library->failure = open_and_resolve(library);
        library->tried = 1;
    }
    const char *failure = library->failure;
    pthread_mutex_unlock(&library->lock);
    return failure;
}
