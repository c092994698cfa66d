/* vmaf_full_precision.c: an LD_PRELOAD shim for the `vmaf` command line that
 * libvmaf-sys builds. libvmaf's writers print every score with "%.6f"; this
 * fprintf rewrites each "%.6f" of its format into "%.17g" (17 significant
 * digits name an fp64 value exactly) and prints through vfprintf. Nothing
 * else changes: the numbers are the ones vmaf computed, only printed in
 * full. Used by tests/src/vmaf_cli.rs; never linked into vkssim. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int fprintf(FILE *stream, const char *format, ...)
{
    char wide[4096];
    const char *use = format;
    if (strstr(format, "%.6f") && strlen(format) * 2 < sizeof(wide)) {
        const char *in = format;
        char *out = wide;
        while (*in) {
            if (!strncmp(in, "%.6f", 4)) {
                memcpy(out, "%.17g", 5);
                out += 5;
                in += 4;
            } else {
                *out++ = *in++;
            }
        }
        *out = '\0';
        use = wide;
    }
    va_list ap;
    va_start(ap, format);
    int n = vfprintf(stream, use, ap);
    va_end(ap);
    return n;
}
