/* A "plugin" a hostile compile_commands.json asks Clang to load. Loading it at all (its
   constructor runs on dlopen) creates the file named by RETRYLINT_EVIL_MARKER: the test
   checks that retrylint never creates it. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void loaded(void) {
  const char *marker = getenv("RETRYLINT_EVIL_MARKER");
  if (marker) {
    FILE *f = fopen(marker, "w");
    if (f) fclose(f);
  }
}
