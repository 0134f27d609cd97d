#include "pathlock/reports/document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "pathlock/reports/tables.hpp"

namespace pathlock::reports {
namespace {

// Terminal columns taken by UTF-8 text: one per code point (the report only
// uses narrow characters).
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string ansi(const std::string& s, CellStyle style, Color color) {
  if (color != Color::kAnsi) return s;
  switch (style) {
    case CellStyle::kAllow: return "\x1b[32m" + s + "\x1b[0m";
    case CellStyle::kBlock: return "\x1b[31m" + s + "\x1b[0m";
    case CellStyle::kMirror: return "\x1b[2m" + s + "\x1b[0m";
    case CellStyle::kHeader: return "\x1b[1m" + s + "\x1b[0m";
    case CellStyle::kPlain: return s;
  }
  return s;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string terminal_table(const Table& t, Color color) {
  std::vector<std::size_t> widths(t.header.size(), 0);
  for (std::size_t c = 0; c < t.header.size(); ++c) widths[c] = display_width(t.header[c]);
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c].text));
    }
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& texts, const std::vector<CellStyle>& styles) {
    out += "  ";
    for (std::size_t c = 0; c < texts.size(); ++c) {
      const bool last = c + 1 == texts.size();
      const std::string cell = last ? texts[c] : pad(texts[c], widths[c]);
      out += ansi(cell, styles[c], color);
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  };
  line(t.header, std::vector<CellStyle>(t.header.size(), CellStyle::kHeader));
  std::vector<std::string> rule;
  for (auto w : widths) rule.push_back(std::string(w, '-'));
  line(rule, std::vector<CellStyle>(rule.size(), CellStyle::kPlain));
  for (const auto& row : t.rows) {
    std::vector<std::string> texts;
    std::vector<CellStyle> styles;
    for (const auto& cell : row) {
      texts.push_back(cell.text);
      styles.push_back(cell.style);
    }
    line(texts, styles);
  }
  return out;
}

// The <svg> element of an SVG file, without the XML declaration and doctype
// that may not appear inside HTML.
std::string svg_element(const std::string& svg) {
  const auto start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

}  // namespace

void embed_svg_images(Document& doc, const std::filesystem::path& dir) {
  for (auto& b : doc.blocks()) {
    if (b.kind != BlockKind::kImage) continue;
    const auto file = dir / b.text;
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in || text.str().find("<svg") == std::string::npos) {
      throw std::runtime_error(fmt::format("cannot read the SVG picture {}", file.string()));
    }
    b.svg = text.str();
  }
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void Document::image(std::string file, std::string caption) {
  blocks_.push_back({BlockKind::kImage, std::move(file), std::move(caption), {}, {}});
}

void Document::heading(int level, std::string text) {
  const BlockKind kind = level <= 1 ? BlockKind::kHeading1
                         : level == 2 ? BlockKind::kHeading2
                                      : BlockKind::kHeading3;
  blocks_.push_back({kind, std::move(text), {}, {}, {}});
}
void Document::paragraph(std::string text) { blocks_.push_back({BlockKind::kParagraph, std::move(text), {}, {}, {}}); }
void Document::alert(std::string text) { blocks_.push_back({BlockKind::kAlert, std::move(text), {}, {}, {}}); }
void Document::code(std::string text) { blocks_.push_back({BlockKind::kCode, std::move(text), {}, {}, {}}); }
void Document::table(Table table) { blocks_.push_back({BlockKind::kTable, {}, {}, std::move(table), {}}); }

Cell allow_cell() { return {"✓", CellStyle::kAllow}; }
Cell block_cell() { return {"✗", CellStyle::kBlock}; }

std::string render_terminal(const Document& doc, Color color) {
  std::string out;
  for (const auto& b : doc.blocks()) {
    switch (b.kind) {
      case BlockKind::kHeading1:
        out += ansi(b.text, CellStyle::kHeader, color) + "\n" + std::string(display_width(b.text), '=') + "\n\n";
        break;
      case BlockKind::kHeading2:
        out += ansi(b.text, CellStyle::kHeader, color) + "\n" + std::string(display_width(b.text), '-') + "\n\n";
        break;
      case BlockKind::kHeading3: out += ansi(b.text, CellStyle::kHeader, color) + "\n\n"; break;
      case BlockKind::kParagraph: out += b.text + "\n\n"; break;
      case BlockKind::kAlert: out += ansi("!! " + b.text, CellStyle::kBlock, color) + "\n\n"; break;
      case BlockKind::kCode: {
        std::string indented;
        std::size_t start = 0;
        while (start < b.text.size()) {
          auto end = b.text.find('\n', start);
          if (end == std::string::npos) end = b.text.size();
          const std::string line = b.text.substr(start, end - start);
          indented += (line.empty() ? "" : "    " + line) + "\n";
          start = end + 1;
        }
        out += indented + "\n";
        break;
      }
      case BlockKind::kTable: out += terminal_table(b.table, color) + "\n"; break;
      case BlockKind::kImage: out += "[plot: " + b.alt + " -> " + b.text + "]\n\n"; break;
    }
  }
  return out;
}

std::string render_markdown(const Document& doc) {
  std::string out;
  for (const auto& b : doc.blocks()) {
    switch (b.kind) {
      case BlockKind::kHeading1: out += "# " + b.text + "\n\n"; break;
      case BlockKind::kHeading2: out += "## " + b.text + "\n\n"; break;
      case BlockKind::kHeading3: out += "### " + b.text + "\n\n"; break;
      case BlockKind::kParagraph: out += b.text + "\n\n"; break;
      case BlockKind::kAlert: out += "> **Warning:** " + b.text + "\n\n"; break;
      case BlockKind::kImage: out += "![" + b.alt + "](" + b.text + ")\n\n"; break;
      case BlockKind::kCode: out += "```\n" + b.text + (b.text.ends_with('\n') ? "" : "\n") + "```\n\n"; break;
      case BlockKind::kTable: {
        const auto& t = b.table;
        out += "|";
        for (const auto& h : t.header) out += " " + md_escape(h) + " |";
        out += "\n|";
        for (std::size_t c = 0; c < t.header.size(); ++c) out += "---|";
        out += "\n";
        for (const auto& row : t.rows) {
          out += "|";
          for (const auto& cell : row) {
            const std::string text = md_escape(cell.text);
            out += " " + (cell.style == CellStyle::kHeader ? "**" + text + "**" : text) + " |";
          }
          out += "\n";
        }
        out += "\n";
        break;
      }
    }
  }
  return out;
}

std::string render_html(const Document& doc, const std::string& title) {
  std::string out = fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: left; vertical-align: top; }}
th {{ background: #f3f3f3; }}
td.allow, td.block {{ font-size: 1.4em; text-align: center; }}
td.allow {{ color: #1a7f37; }}
td.block {{ color: #cf222e; }}
td.mirror {{ background: #eee; color: #aaa; }}
td.label {{ font-weight: bold; background: #f8f8f8; }}
.alert {{ border-left: 0.4em solid #cf222e; background: #fff0f0; padding: 0.6em 1em; }}
pre {{ background: #f6f8fa; padding: 0.8em; overflow-x: auto; }}
</style>
</head>
<body>
)",
                                html_escape(title));
  for (const auto& b : doc.blocks()) {
    switch (b.kind) {
      case BlockKind::kHeading1: out += "<h1>" + html_escape(b.text) + "</h1>\n"; break;
      case BlockKind::kHeading2: out += "<h2>" + html_escape(b.text) + "</h2>\n"; break;
      case BlockKind::kHeading3: out += "<h3>" + html_escape(b.text) + "</h3>\n"; break;
      case BlockKind::kParagraph: out += "<p>" + html_escape(b.text) + "</p>\n"; break;
      case BlockKind::kAlert: out += "<p class=\"alert\"><strong>Warning:</strong> " + html_escape(b.text) + "</p>\n"; break;
      case BlockKind::kCode: out += "<pre>" + html_escape(b.text) + "</pre>\n"; break;
      case BlockKind::kImage:
        if (b.svg.empty()) {
          throw std::runtime_error(fmt::format("the HTML report cannot embed {}: its SVG text was not read", b.text));
        }
        out += "<figure>\n" + svg_element(b.svg) + "\n<figcaption>" + html_escape(b.alt) + "</figcaption></figure>\n";
        break;
      case BlockKind::kTable: {
        out += "<table>\n<tr>";
        for (const auto& h : b.table.header) out += "<th>" + html_escape(h) + "</th>";
        out += "</tr>\n";
        for (const auto& row : b.table.rows) {
          out += "<tr>";
          for (const auto& cell : row) {
            const char* cls = "";
            switch (cell.style) {
              case CellStyle::kAllow: cls = " class=\"allow\""; break;
              case CellStyle::kBlock: cls = " class=\"block\""; break;
              case CellStyle::kMirror: cls = " class=\"mirror\""; break;
              case CellStyle::kHeader: cls = " class=\"label\""; break;
              case CellStyle::kPlain: break;
            }
            out += fmt::format("<td{}>{}</td>", cls, html_escape(cell.text));
          }
          out += "</tr>\n";
        }
        out += "</table>\n";
        break;
      }
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace pathlock::reports
