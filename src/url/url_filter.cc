#include "url/url_filter.h"

namespace cuckoo {
namespace url {

Status AddEntry(void* filter, AddKey add, const UrlInput& in, uint8_t* buf, size_t buf_len,
                CanonicalUrl* canon, UrlSpan* expression) {
  const Status s = Entry(in, buf, buf_len, canon, expression);
  if (s != Status::kOk) return s;
  return add(filter, buf + expression->offset, expression->length);
}

bool Match(const void* filter, FirstContained first, const UrlInput& in, uint8_t* buf,
           size_t buf_len, CanonicalUrl* canon, UrlSpan* found, Status* status) {
  *status = Canonical(in, buf, buf_len, canon);
  if (*status != Status::kOk) return false;
  UrlSpan spans[kMaxExpressions];
  const size_t n = UrlExpressions(*canon, buf, spans);
  const size_t i = first(filter, buf, spans, n);
  if (i == n) return false;
  *found = spans[i];
  return true;
}

}  // namespace url
}  // namespace cuckoo
