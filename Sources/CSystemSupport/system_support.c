#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "system_support.h"

const char *noti_object_path(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0) return NULL;
    return info.dli_fname;
}

void noti_name_this_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);  /* only ERANGE (too long), which it is not: a name is for people */
}

static void *nothing(void *argument) { return argument; }

int noti_thread_can_start(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, nothing, NULL) != 0) return 0;
    pthread_join(thread, NULL);
    return 1;
}
