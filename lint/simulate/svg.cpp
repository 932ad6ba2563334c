#include <algorithm>
#include <cmath>

#include <llvm/Support/Format.h>

#include "lint/report/report.h"
#include "lint/simulate/picture.h"

namespace retrylint {
namespace {

// Text for XML: valid UTF-8 (invalid bytes as U+FFFD), the markup characters as entities, and the
// control characters XML 1.0 forbids (all below U+0020 but tab and line breaks) as U+FFFD: a
// policy's name from a stranger's file never makes the picture invalid.
std::string escape(const std::string &raw) {
  const std::string s = validUtf8(raw);
  std::string o;
  for (char c : s) {
    switch (c) {
    case '&': o += "&amp;"; break;
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '"': o += "&quot;"; break;
    case '\t': case '\n': case '\r': o += c; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) o += "\xEF\xBF\xBD";
      else o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string thousands(int64_t v) {
  std::string s = std::to_string(v), o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) o += ',';
    o += s[i];
  }
  return o;
}

std::string seconds(double s) {
  char b[32];
  if (s >= 1 || s == 0) std::snprintf(b, sizeof b, "%g s", s);
  else std::snprintf(b, sizeof b, "%g ms", s * 1000);
  return b;
}

// A round step for an axis from 0 to `max` with about `n` ticks.
double tickStep(double max, int n) {
  double raw = max / n, mag = std::pow(10.0, std::floor(std::log10(raw > 0 ? raw : 1)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

} // namespace

void writeStormSvg(llvm::raw_ostream &os, const StormPicture &p) {
  constexpr double W = 960, left = 80, right = 30, top = 78, panelH = 230, gap = 70, bottom = 40;
  const double plotW = W - left - right;
  const double H = top + p.series.size() * (panelH + gap) - gap + bottom + 30;

  double horizon = std::max(1.0, p.outage_s);
  for (const StormSeries &s : p.series) horizon = std::max(horizon, s.result.last_call_s);
  horizon *= 1.05;
  const double width = binWidthFor(horizon);
  horizon = std::ceil(horizon / width) * width;
  std::vector<std::vector<int64_t>> bins;
  int64_t peak = 1;
  for (const StormSeries &s : p.series) {
    bins.push_back(binCalls(s.result, width, horizon));
    for (int64_t b : bins.back()) peak = std::max(peak, b);
  }
  const double yStep = tickStep(static_cast<double>(peak), 5);
  const double yMax = std::ceil(static_cast<double>(peak) / yStep) * yStep;
  const double xStep = tickStep(horizon, 10);
  auto X = [&](double t) { return left + t / horizon * plotW; };

  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W) << "\" height=\"" << num(H) << "\" viewBox=\"0 0 "
     << num(W) << " " << num(H) << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  os << "<title>" << escape(p.title) << "</title>\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  os << "<text x=\"" << num(left) << "\" y=\"26\" font-size=\"17\" font-weight=\"bold\">" << escape(p.title) << "</text>\n";
  os << "<text x=\"" << num(left) << "\" y=\"48\" fill=\"#444444\">" << thousands(p.clients)
     << " clients send a request at t = 0; the service they depend on answers every call with an error for "
     << escape(seconds(p.outage_s)) << ", then recovers.</text>\n";

  for (size_t k = 0; k < p.series.size(); ++k) {
    const StormSeries &s = p.series[k];
    const StormResult &r = s.result;
    const double y0 = top + k * (panelH + gap), yB = y0 + panelH;
    auto Y = [&](double v) { return yB - v / yMax * panelH; };
    int64_t seriesPeak = 0;
    for (int64_t b : bins[k]) seriesPeak = std::max(seriesPeak, b);
    char amp[32];
    std::snprintf(amp, sizeof amp, "%.1f", r.amplification);
    std::string headline = s.label + ": " + thousands(r.calls) + (r.truncated ? "+" : "") + " calls reach the failing service (" + amp +
                           " × the requests), peak " + thousands(seriesPeak) + " in " + seconds(width);
    os << "<g id=\"panel-" << escape(s.id) << "\">\n";
    os << "<text x=\"" << num(left) << "\" y=\"" << num(y0 - 10) << "\" font-size=\"14\" font-weight=\"bold\" fill=\"" << s.color
       << "\">" << escape(headline) << "</text>\n";
    // The outage, shaded.
    os << "<rect x=\"" << num(X(0)) << "\" y=\"" << num(y0) << "\" width=\"" << num(X(p.outage_s) - X(0)) << "\" height=\""
       << num(panelH) << "\" fill=\"#f3e3e3\"/>\n";
    os << "<text x=\"" << num(X(p.outage_s) - 4) << "\" y=\"" << num(y0 + 14) << "\" text-anchor=\"end\" fill=\"#a05050\">outage ("
       << escape(seconds(p.outage_s)) << ")</text>\n";
    // Grid and axes.
    for (double v = 0; v <= yMax + 1e-9; v += yStep)
      os << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + plotW) << "\" y1=\"" << num(Y(v)) << "\" y2=\"" << num(Y(v))
         << "\" stroke=\"#dddddd\"/><text x=\"" << num(left - 6) << "\" y=\"" << num(Y(v) + 4) << "\" text-anchor=\"end\">"
         << thousands(static_cast<int64_t>(v)) << "</text>\n";
    for (double t = 0; t <= horizon + 1e-9; t += xStep)
      os << "<line x1=\"" << num(X(t)) << "\" x2=\"" << num(X(t)) << "\" y1=\"" << num(yB) << "\" y2=\"" << num(yB + 4)
         << "\" stroke=\"#333333\"/><text x=\"" << num(X(t)) << "\" y=\"" << num(yB + 17) << "\" text-anchor=\"middle\">"
         << llvm::format("%g", t) << "</text>\n";
    os << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + plotW) << "\" y1=\"" << num(yB) << "\" y2=\"" << num(yB)
       << "\" stroke=\"#333333\"/><line x1=\"" << num(left) << "\" x2=\"" << num(left) << "\" y1=\"" << num(y0) << "\" y2=\""
       << num(yB) << "\" stroke=\"#333333\"/>\n";
    os << "<text transform=\"translate(" << num(left - 52) << " " << num(y0 + panelH / 2) << ") rotate(-90)\" text-anchor=\"middle\">calls per "
       << escape(seconds(width)) << "</text>\n";
    os << "<text x=\"" << num(left + plotW / 2) << "\" y=\"" << num(yB + 34) << "\" text-anchor=\"middle\">time since the failure (s)</text>\n";
    // The series: a filled step outline, one step per bin.
    os << "<path id=\"series-" << escape(s.id) << "\" data-calls=\"" << r.calls << "\" data-bin-seconds=\"" << width
       << "\" fill=\"" << s.color << "\" fill-opacity=\"0.75\" stroke=\"" << s.color << "\" d=\"M" << num(X(0)) << " " << num(yB);
    for (size_t i = 0; i < bins[k].size(); ++i) {
      double y = Y(static_cast<double>(bins[k][i]));
      os << " L" << num(X(i * width)) << " " << num(y) << " L" << num(X((i + 1) * width)) << " " << num(y);
    }
    os << " L" << num(X(horizon)) << " " << num(yB) << " Z\"/>\n";
    os << "</g>\n";
  }
  // Legend.
  double ly = H - 16, lx = left;
  os << "<g id=\"legend\">\n";
  for (const StormSeries &s : p.series) {
    os << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - 10) << "\" width=\"14\" height=\"10\" fill=\"" << s.color
       << "\"/><text x=\"" << num(lx + 20) << "\" y=\"" << num(ly) << "\">" << escape(s.label) << "</text>\n";
    lx += 40 + 7.0 * static_cast<double>(s.label.size());
  }
  os << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - 10) << "\" width=\"14\" height=\"10\" fill=\"#f3e3e3\"/><text x=\""
     << num(lx + 20) << "\" y=\"" << num(ly) << "\">the outage</text>\n</g>\n</svg>\n";
}

} // namespace retrylint
