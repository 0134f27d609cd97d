#pragma once
// A small document model (headings, paragraphs, tables, alerts, code) with
// three renderers, so the terminal, Markdown and HTML forms of a report say
// the same thing from one source.

#include <filesystem>
#include <string>
#include <vector>

namespace pathlock::reports {

enum class CellStyle {
  kPlain,
  kAllow,   // ✓: may run together (green)
  kBlock,   // ✗: blocked (red)
  kMirror,  // the mirror image of a cell above the diagonal (faded grey)
  kHeader,  // a row label
};

struct Cell {
  std::string text;
  CellStyle style = CellStyle::kPlain;
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};

enum class BlockKind { kHeading1, kHeading2, kHeading3, kParagraph, kTable, kAlert, kCode, kImage };

struct Block {
  BlockKind kind;
  std::string text;  // for everything but tables; an image's file name
  std::string alt;   // an image's caption
  Table table;       // for kTable
  std::string svg;   // an image's SVG text, for HTML to embed (see embed_svg_images)
};

class Document {
 public:
  void heading(int level, std::string text);
  void paragraph(std::string text);
  void alert(std::string text);
  void code(std::string text);
  void table(Table table);
  // A picture in a file beside the report (relative name).
  void image(std::string file, std::string caption);
  const std::vector<Block>& blocks() const noexcept { return blocks_; }
  std::vector<Block>& blocks() noexcept { return blocks_; }

 private:
  std::vector<Block> blocks_;
};

enum class Color { kNone, kAnsi };
std::string render_terminal(const Document& doc, Color color);
std::string render_markdown(const Document& doc);
// One self-contained file: an image whose SVG text was embedded is drawn
// inline; any other image is an error (std::runtime_error naming it).
std::string render_html(const Document& doc, const std::string& title);

// Reads every image's SVG file from `dir` into the document, so HTML can
// draw it inline. Throws std::runtime_error naming a file it cannot read.
void embed_svg_images(Document& doc, const std::filesystem::path& dir);

// & < > " escaped, for HTML and SVG text.
std::string html_escape(const std::string& s);

// Cells for verdicts: ✓ (allows) or ✗ (blocks), styled.
Cell allow_cell();
Cell block_cell();

}  // namespace pathlock::reports
