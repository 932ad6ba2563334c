#include "rules/rule.h"

namespace retrylint {
namespace {

void check(const FileModel &m, const Settings &, Reporter &out) {
  for (const RetryPolicy &p : m.policies) {
    for (const Span &where : p.keys_made_per_attempt) {
      out.report(p, where, "keyPerAttempt/" + std::to_string(where.line - p.where.line),
                 "the idempotency key is made inside the retry loop, so each attempt sends a new key and the server "
                 "treats every retry as a new request: a retry after a lost answer runs the operation again; make the "
                 "key once, before the first attempt");
    }
  }
}

} // namespace

extern const Rule kRL404 = {
    "RL404", "idempotency-key-per-attempt", Severity::Error,
    "an idempotency key is created inside the retry loop, so every attempt looks like a new request",
    {
        "A fresh UUID or random token generated inside a retry loop and sent as the request's idempotency key "
        "(an `Idempotency-Key` header, a field or argument named like it).",
        "Idempotency keys let the server recognise a retry of a request it already processed and return the "
        "first answer. A key made per attempt is different on every retry, so the server runs the operation "
        "again: a second charge, a duplicate order.",
        "    for (int attempt = 0; attempt < 3; ++attempt) {\n"
        "      req.SetHeader(\"Idempotency-Key\", NewUuid());\n"
        "      if (client.Post(req).ok()) break;\n"
        "    }",
        "    req.SetHeader(\"Idempotency-Key\", NewUuid());\n"
        "    for (int attempt = 0; attempt < 3; ++attempt) {\n"
        "      if (client.Post(req).ok()) break;\n"
        "    }",
        "None.",
        "IETF draft \"The Idempotency-Key HTTP Header Field\"; Stripe API, idempotent requests.",
    },
    check,
};

} // namespace retrylint
