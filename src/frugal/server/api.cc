// The JSON API (/api/v1/..., docs/api.md) and /metrics. Each handler turns a request into the
// library call the CLI makes for the same question and returns the same document, with
// schema_version added as the CLI adds it.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "frugal/app/audit.h"
#include "frugal/app/plan.h"
#include "frugal/app/report.h"
#include "frugal/app/studies.h"
#include "frugal/app/study_store.h"
#include "frugal/audit/audit.h"
#include "frugal/audit/audit_output.h"
#include "frugal/catalog/offer_json.h"
#include "frugal/core/log.h"
#include "frugal/core/text.h"
#include "frugal/ledger/fleet.h"
#include "frugal/ledger/report.h"
#include "frugal/ledger/run_json.h"
#include "frugal/ledger/window.h"
#include "frugal/queue/queue_view.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/run_control.h"
#include "frugal/run/run_text.h"
#include "frugal/server/metrics.h"
#include "frugal/server/server_internal.h"
#include "frugal/tune/ledger_study_store.h"
#include "frugal/tune/study_report.h"
#include "frugal/tune/study_status.h"

namespace frugal::server {
namespace {

using Json = nlohmann::json;

/// Runs returned when the request names no limit: a page, not a 100,000-run dump.
constexpr int64_t kDefaultRunLimit = 100;

int HttpStatus(const Error& e) {
  switch (e.code) {
    case ErrorCode::kBadInput:
      return 400;
    case ErrorCode::kBudget:
      return 409;
    case ErrorCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

void SendError(Response& res, int status, const std::string& message) {
  // A message may echo what the client sent; bytes that are not UTF-8 are written replaced.
  SetJsonError(res, status, message);
}

/// kBadInput naming the parameter (or the path) whose decoded text is not UTF-8: every
/// document echoes what it was asked, and JSON holds only UTF-8.
Result<void> RequireUtf8Request(const Request& req) {
  if (FirstInvalidUtf8(req.path)) {
    return Fail(ErrorCode::kBadInput, "the path is not UTF-8 text once %-decoded");
  }
  for (const auto& [name, value] : req.params) {
    if (FirstInvalidUtf8(name) || FirstInvalidUtf8(value)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: not UTF-8 text once %-decoded", run::EscapeNonUtf8(name)));
    }
  }
  return {};
}

void Send(Response& res, Result<Json> doc) {
  if (!doc) {
    SendError(res, HttpStatus(doc.error()), doc.error().message);
    return;
  }
  (*doc)["schema_version"] = 1;
  res.set_content(doc->dump() + "\n", "application/json");
}

std::string Param(const Request& req, const char* name, std::string fallback = "") {
  return req.has_param(name) ? req.get_param_value(name) : std::move(fallback);
}

Result<int64_t> IntParam(const Request& req, const char* name, int64_t fallback, int64_t max) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.get_param_value(name);
  const Result<int64_t> n = ParseInt(text);
  if (!n || *n < 0 || *n > max) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: expected a whole number from 0 to {}, got '{}'", name, max, text));
  }
  return *n;
}

}  // namespace

std::string TokenOf(const Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  return auth.starts_with(kBearer) ? std::string(Trim(auth.substr(kBearer.size()))) : "";
}

bool SameToken(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned>(static_cast<unsigned char>(a[i]) ^
                                  static_cast<unsigned char>(i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

bool Authorized(const Server::Impl& impl, const Request& req, Response& res, bool changes) {
  const bool needed = changes || !IsLoopback(impl.options.listen.host);
  if (!needed) return true;
  if (!impl.options.token) {
    SendError(res, 403,
              "this server has no token, so it changes nothing: start it with --token-file to "
              "allow state-changing requests");
    return false;
  }
  const std::string given = TokenOf(req);
  if (given.empty()) {
    res.set_header("WWW-Authenticate", "Bearer");
    SendError(res, 401, "this request needs the server's token (Authorization: Bearer <token>)");
    return false;
  }
  if (!SameToken(given, *impl.options.token)) {
    SendError(res, 403, "wrong token");
    return false;
  }
  return true;
}

namespace {

template <typename Fn>
Handler Reading(Server::Impl& impl, Fn fn) {
  return [&impl, fn](const Request& req, Response& res) {
    if (!Authorized(impl, req, res, false)) return;
    if (Result<void> text = RequireUtf8Request(req); !text) {
      Send(res, Fail(text.error()));
      return;
    }
    Send(res, fn(req));
  };
}

template <typename Fn>
Handler Changing(Server::Impl& impl, Fn fn) {
  return [&impl, fn](const Request& req, Response& res) {
    if (!Authorized(impl, req, res, true)) return;
    if (Result<void> text = RequireUtf8Request(req); !text) {
      Send(res, Fail(text.error()));
      return;
    }
    Send(res, fn(req));
  };
}

/// A request about one named resource: 404 with `lookup`'s message when it finds none
/// (kBadInput), the usual status for its other errors, else `fn`'s document.
template <typename Lookup, typename Fn>
Handler Named(Server::Impl& impl, bool changes, Lookup lookup, Fn fn) {
  return [&impl, changes, lookup, fn](const Request& req, Response& res) {
    if (!Authorized(impl, req, res, changes)) return;
    if (Result<void> text = RequireUtf8Request(req); !text) {
      Send(res, Fail(text.error()));
      return;
    }
    if (Result<void> found = lookup(req.matches[1]); !found) {
      const Error& e = found.error();
      SendError(res, e.code == ErrorCode::kBadInput ? 404 : HttpStatus(e), e.message);
      return;
    }
    Send(res, fn(req));
  };
}

// --- Runs -------------------------------------------------------------------------------

Result<void> RunExists(Server::Impl& impl, const std::string& ref) {
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  FRUGAL_TRY(run::ResolveRunRef(*db, ref));
  return {};
}

Result<Json> ListRuns(Server::Impl& impl, const Request& req) {
  const ledger::Timestamp now = ledger::Now();
  ledger::RunFilterText text;
  text.since = Param(req, "since");
  text.until = Param(req, "until");
  text.status = Param(req, "status");
  for (size_t i = 0; i < req.get_param_value_count("tag"); ++i) {
    text.tags.push_back(req.get_param_value("tag", i));
  }
  text.limit = FRUGAL_TRY(IntParam(req, "limit", kDefaultRunLimit, 1'000'000'000));
  const ledger::RunFilter filter = FRUGAL_TRY(ledger::ParseRunFilter(text, now, ""));
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  return ledger::RunListJson(FRUGAL_TRY(db->ListRuns(filter, now)));
}

Result<Json> ShowRun(Server::Impl& impl, const std::string& ref) {
  const ledger::Timestamp now = ledger::Now();
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  const int64_t id = FRUGAL_TRY(run::ResolveRunRef(*db, ref));
  return ledger::RunDetailJson(FRUGAL_TRY(db->GetRunDetail(id, now)), now);
}

Json Opt(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

Result<Json> RunSamples(Server::Impl& impl, const std::string& ref) {
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  const int64_t id = FRUGAL_TRY(run::ResolveRunRef(*db, ref));
  FRUGAL_TRY(db->GetRun(id));
  const std::vector<ledger::Sample> samples = FRUGAL_TRY(db->SamplesOf(id));
  Json list = Json::array();
  for (const ledger::Sample& s : samples) {
    list.push_back({{"time", ledger::FormatTimestamp(s.time)},
                    {"gpu_util_percent", Opt(s.gpu_util)},
                    {"cpu_util_percent", Opt(s.cpu_util)},
                    {"gpu_mem_bytes", Opt(s.gpu_mem_bytes)},
                    {"power_watts", Opt(s.power_watts)},
                    {"io_wait_percent", Opt(s.io_wait)}});
  }
  return Json{{"run", id}, {"samples", std::move(list)}};
}

Result<Json> CancelRun(Server::Impl& impl, const std::string& ref) {
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  const int64_t id = FRUGAL_TRY(run::ResolveRunRef(*db, ref));
  const ledger::Run run = FRUGAL_TRY(db->GetRun(id));
  if (run.status != ledger::RunStatus::kRunning) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("run {} is {}, not running", id, ledger::RunStatusName(run.status)));
  }
  const int pid = FRUGAL_TRY(run::InterruptSupervisor(run::DefaultRunDir(run.name), run.name));
  return Json{{"run", id}, {"name", run.name}, {"signalled_pid", pid}, {"action", "cancel"}};
}

// --- Spend ------------------------------------------------------------------------------

/// The `since`/`until` window of a request, as the CLI reads --since/--until.
Result<ledger::TimeWindow> WindowParam(const Request& req, const char* default_since,
                                       ledger::Timestamp now) {
  return ledger::ParseWindow(Param(req, "since", default_since), Param(req, "until"), now, "");
}

Result<Json> Report(Server::Impl& impl, const Request& req) {
  app::ReportRequest request;
  request.by = Param(req, "by");
  request.since = Param(req, "since", request.since);
  request.until = Param(req, "until");
  request.now = ledger::Now();
  request.burn_window = impl.thresholds.BudgetBurnWindow();
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  return ledger::ReportToJson(FRUGAL_TRY(app::BuildReport(*db, request)));
}

Result<Json> DailySpend(Server::Impl& impl, const Request& req) {
  const ledger::Timestamp now = ledger::Now();
  const std::vector<ledger::GroupKey> by =
      FRUGAL_TRY(ledger::ParseGroupKeys(Param(req, "by", "team")));
  if (by.size() != 1) return Fail(ErrorCode::kBadInput, "by: name exactly one group key");
  const ledger::TimeWindow w = FRUGAL_TRY(WindowParam(req, "30d", now));
  if (w.until - w.since > std::chrono::hours(24 * 400)) {
    return Fail(ErrorCode::kBadInput, "since: at most 400 days of daily spend at once");
  }
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  return ledger::DailySpendToJson(FRUGAL_TRY(ledger::LoadDailySpend(*db, by[0], w.since, w.until)));
}

// --- Audit and budgets ------------------------------------------------------------------

Result<audit::AuditResult> Audit(Server::Impl& impl, const Request& req) {
  app::AuditRequest request;
  request.since = Param(req, "since", request.since);
  request.options.now = ledger::Now();
  request.options.thresholds = impl.thresholds;
  request.options.catalog = &impl.catalog;
  request.options.transfer = &impl.transfer;
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  return app::RunAudit(*db, std::move(request));
}

// --- Queue ------------------------------------------------------------------------------

/// `queue list --json`: the jobs in `state` (a comma list; all when absent).
Result<Json> ListQueue(Server::Impl& impl, const Request& req) {
  std::vector<std::string> states;
  if (const std::string state = Param(req, "state"); !state.empty()) states = Split(state, ',');
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  Result<std::vector<queue::JobView>> listed =
      queue::ListJobs(*db, states, queue::SecondsAt(RealClock().Wall()));
  if (!listed) {
    return Fail(listed.error().code == ErrorCode::kBadInput ? listed.error().Wrap("state")
                                                            : listed.error());
  }
  return queue::ListJson(*listed);
}

/// The job id of a /api/v1/queue/ID path: a positive whole number.
Result<int64_t> QueueJobId(const std::string& text) {
  const Result<int64_t> id = ParseInt(text);
  if (!id || *id < 1) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("queue job id: expected a whole number from 1, got '{}'", text));
  }
  return *id;
}

/// `queue show ID --json`.
Result<Json> ShowQueueJob(Server::Impl& impl, const std::string& ref) {
  const int64_t id = FRUGAL_TRY(QueueJobId(ref));
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  return queue::ShowJson(FRUGAL_TRY(queue::ShowJob(*db, id, queue::SecondsAt(RealClock().Wall()))));
}

Result<void> QueueJobExists(Server::Impl& impl, const std::string& ref) {
  const int64_t id = FRUGAL_TRY(QueueJobId(ref));
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  FRUGAL_TRY(queue::FindJob(*db, id));  // the row alone: the view is built once, by the show
  return {};
}

// --- Studies ----------------------------------------------------------------------------

/// The study store the CLI reads: the ledger (app/study_store.h), with study files of older
/// versions imported first.
template <typename Fn>
Result<Json> WithStudyStore(Server::Impl& impl, Fn fn) {
  for (const std::string& note : FRUGAL_TRY(app::ImportPendingStudies(impl.options.db))) {
    log::Info("{}", note);
  }
  auto db = FRUGAL_TRY(impl.pool.Acquire());
  const tune::LedgerStudyStore store(*db);
  return fn(store);
}

Result<Json> ListStudies(Server::Impl& impl) {
  return WithStudyStore(impl,
                        [](const tune::StudyStore& store) { return app::StudyListJson(store); });
}

Result<void> StudyExists(Server::Impl& impl, const std::string& name) {
  const Result<Json> found =
      WithStudyStore(impl, [&name](const tune::StudyStore& store) -> Result<Json> {
        const std::vector<std::string> names = FRUGAL_TRY(store.Names());
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          return Fail(ErrorCode::kBadInput, "no study named '" + name + "'");
        }
        return Json();
      });
  if (!found) return Fail(found.error());
  return {};
}

Result<Json> ShowStudy(Server::Impl& impl, const std::string& name) {
  return WithStudyStore(impl, [&name](const tune::StudyStore& store) -> Result<Json> {
    const tune::StudyStatus st = FRUGAL_TRY(tune::LoadStudyStatus(store, name));
    return tune::StatusJson(st.spec, st.state, st.trials);
  });
}

// --- Catalog and plan -------------------------------------------------------------------

Result<Json> Offers(Server::Impl& impl, const Request& req) {
  catalog::OfferQuery q;
  if (req.has_param("gpu")) q.gpu = req.get_param_value("gpu");
  if (req.has_param("cloud")) q.cloud = req.get_param_value("cloud");
  if (req.has_param("region")) q.region = req.get_param_value("region");
  if (req.has_param("tier")) {
    q.tier = FRUGAL_TRY(ParseRentedTier(req.get_param_value("tier")).map_error([](const Error& e) {
      return e.Wrap("tier");
    }));
  }
  if (req.has_param("max_price")) {
    q.max_price_per_hour =
        FRUGAL_TRY(Money::Parse(req.get_param_value("max_price")).map_error([](const Error& e) {
          return e.Wrap("max_price");
        }));
  }
  q.min_gpus = static_cast<int>(FRUGAL_TRY(IntParam(req, "min_gpus", 0, 1'000'000)));
  const std::string sort = Param(req, "sort", "price");
  if (sort != "price" && sort != "price_per_gpu") {
    return Fail(ErrorCode::kBadInput, "sort: expected price or price_per_gpu, got '" + sort + "'");
  }
  q.sort = sort == "price_per_gpu" ? catalog::OfferQuery::Sort::kPricePerGpu
                                   : catalog::OfferQuery::Sort::kPrice;
  q.limit = static_cast<size_t>(FRUGAL_TRY(IntParam(req, "limit", 0, 1'000'000)));
  const auto offers = FRUGAL_TRY(impl.catalog.Query(q));
  return catalog::OfferListJson(offers, impl.catalog.info().snapshot_date);
}

/// The plan of a posted job or inference spec: what `frugal plan SPEC --json` prints, refused
/// where it refuses (app/plan.h), screened by the policy in effect on this host.
Result<Json> Plan(Server::Impl& impl, const Request& req) {
  app::PlanInput in;
  in.posted = req.body;
  in.deadline = Param(req, "deadline");
  in.budget = Param(req, "budget");
  in.objective = Param(req, "objective");
  in.top = static_cast<size_t>(FRUGAL_TRY(IntParam(req, "top", 10, 1'000'000)));
  in.spelling = app::Spelling::kParameter;
  app::PlanContext ctx;
  ctx.catalog = &impl.catalog;
  ctx.policy_flag = impl.options.policy;
  ctx.ledger = [&impl](ledger::CreateMode, const app::LedgerUse& use) -> Result<void> {
    auto db = FRUGAL_TRY(impl.pool.Acquire());
    return use(*db);
  };
  const app::PlanResult r = FRUGAL_TRY(app::Plan(in, ctx));
  for (const std::string& w : r.warnings) log::Warning("POST /api/v1/plan: {}", w);
  if (r.refusal) return tl::unexpected(r.refusal->error);
  return r.document;
}

// --- Metrics ----------------------------------------------------------------------------

void Metrics(Server::Impl& impl, const Request& req, Response& res) {
  if (!Authorized(impl, req, res, false)) return;
  const auto start = std::chrono::steady_clock::now();
  std::vector<BudgetSpend> budgets;
  Result<ledger::FleetFacts> facts = [&]() -> Result<ledger::FleetFacts> {
    auto db = FRUGAL_TRY(impl.pool.Acquire());
    const ledger::Timestamp now = ledger::Now();
    ledger::FleetFacts f = FRUGAL_TRY(impl.metrics_cache.Load(*db, now));
    budgets = FRUGAL_TRY(LoadBudgetSpend(*db, impl.thresholds.budgets, now));
    return f;
  }();
  if (!facts) {
    res.status = HttpStatus(facts.error());
    res.set_content("# " + facts.error().message + "\n", "text/plain; charset=utf-8");
    return;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  res.set_content(RenderMetrics(*facts, budgets, seconds),
                  "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace

void AddApiRoutes(Server::Impl& impl) {
  Router& h = impl.http;
  Server::Impl* p = &impl;
  h.Get("/api/v1/runs", Reading(impl, [p](const Request& r) { return ListRuns(*p, r); }));
  const auto run = [p](const std::string& ref) { return RunExists(*p, ref); };
  const auto study = [p](const std::string& name) { return StudyExists(*p, name); };
  h.Get(R"(/api/v1/runs/([^/]+))",
        Named(impl, false, run, [p](const Request& r) { return ShowRun(*p, r.matches[1]); }));
  h.Get(R"(/api/v1/runs/([^/]+)/samples)",
        Named(impl, false, run, [p](const Request& r) { return RunSamples(*p, r.matches[1]); }));
  h.Post(R"(/api/v1/runs/([^/]+)/cancel)",
         Named(impl, true, run, [p](const Request& r) { return CancelRun(*p, r.matches[1]); }));
  h.Get("/api/v1/report", Reading(impl, [p](const Request& r) { return Report(*p, r); }));
  h.Get("/api/v1/spend/daily", Reading(impl, [p](const Request& r) { return DailySpend(*p, r); }));
  h.Get("/api/v1/audit", Reading(impl, [p](const Request& r) -> Result<Json> {
          return audit::AuditToJson(FRUGAL_TRY(Audit(*p, r)));
        }));
  h.Get("/api/v1/budgets", Reading(impl, [p](const Request& r) -> Result<Json> {
          const Json doc = audit::AuditToJson(FRUGAL_TRY(Audit(*p, r)));
          return Json{{"budgets", doc.at("budgets")}, {"until", doc.at("until")}};
        }));
  h.Get("/api/v1/queue", Reading(impl, [p](const Request& r) { return ListQueue(*p, r); }));
  const auto job = [p](const std::string& ref) { return QueueJobExists(*p, ref); };
  h.Get(R"(/api/v1/queue/([^/]+))",
        Named(impl, false, job, [p](const Request& r) { return ShowQueueJob(*p, r.matches[1]); }));
  h.Get("/api/v1/studies", Reading(impl, [p](const Request&) { return ListStudies(*p); }));
  h.Get(R"(/api/v1/studies/([^/]+))",
        Named(impl, false, study, [p](const Request& r) { return ShowStudy(*p, r.matches[1]); }));
  h.Get(R"(/api/v1/studies/([^/]+)/curves)", Named(impl, false, study, [p](const Request& r) {
          const std::string name = r.matches[1];
          return WithStudyStore(*p, [&name](const tune::StudyStore& store) -> Result<Json> {
            return tune::TrialCurvesJson(FRUGAL_TRY(tune::LoadStudyStatus(store, name)));
          });
        }));
  h.Post(R"(/api/v1/studies/([^/]+)/pause)", Changing(impl, [](const Request& r) -> Result<Json> {
           const std::string name = r.matches[1];
           const int pid = FRUGAL_TRY(tune::PauseStudy(name));
           return Json{{"study", name}, {"signalled_pid", pid}, {"action", "pause"}};
         }));
  h.Get("/api/v1/catalog/offers", Reading(impl, [p](const Request& r) { return Offers(*p, r); }));
  h.Post("/api/v1/plan", Reading(impl, [p](const Request& r) { return Plan(*p, r); }));
  h.Get("/metrics", [p](const Request& r, Response& res) { Metrics(*p, r, res); });
  // Other /api paths are 404s and the dashboard's files are served by the front door
  // (front.cc), which also answers a handler's exception with the error document.
}

}  // namespace frugal::server
