#ifndef NOTI_SYSTEM_SUPPORT_H
#define NOTI_SYSTEM_SUPPORT_H

/* The path of the ELF object (program or shared library) that holds `address`, as the dynamic
 * loader recorded it, or NULL. dladdr is a GNU extension, which Swift's Glibc module leaves out. */
const char *noti_object_path(const void *address);

/* Names the calling thread (at most 15 bytes are kept), as `top -H` and /proc/PID/task/TID/comm
 * show it. pthread_setname_np is a GNU extension too. */
void noti_name_this_thread(const char *name);

/* Whether a thread can be started now: one is started, doing nothing, and joined. 1 or 0. In C,
 * so that asking runs none of the Swift code a player's threads would. */
int noti_thread_can_start(void);

#endif
