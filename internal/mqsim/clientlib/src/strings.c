/* strings.c -- lookup used by the generated MQxxx_STR tables (strtab.c). */
#include "internal.h"

/* Tables are sorted by value; unknown values give "" as IBM's do. */
const char *mqs_strlookup(const mqs_strent *t, size_t n, MQLONG v)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t[mid].v == v)
      return t[mid].name;
    if (t[mid].v < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return "";
}
