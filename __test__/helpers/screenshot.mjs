// A terminal screen as an SVG picture, for docs/: tmux's capture with its escape sequences
// (`capture-pane -e`), parsed by `anser` (SGR colours: the 16, the 256 and true colour; bold,
// dim, italic), drawn as one <text> per line on a dark background. Every cell is one monospace
// column wide, as the terminal laid it out.
import Anser from "anser";

const FONT_SIZE = 14;
const CELL_WIDTH = 8.4; // a monospace advance at 14 px
const LINE_HEIGHT = 18;
const PADDING = 12;
const BACKGROUND = "#1e1e1e";
const FOREGROUND = "#d4d4d4";

const escapeXml = (text) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const rgb = (triple) => `rgb(${triple.replace(/\s+/g, "")})`;
const width = (text) => [...text].length;

/** One row's chunks without the blank cells it ends with (the terminal pads every row to its width). */
function trimmed(chunks) {
  const out = [...chunks];
  while (out.length > 0 && !out.at(-1).bg && out.at(-1).content.trimEnd() === "") out.pop();
  if (out.length > 0 && !out.at(-1).bg) out[out.length - 1] = { ...out.at(-1), content: out.at(-1).content.trimEnd() };
  return out;
}

const at = (n) => Math.round(n * 10) / 10;

/** The SVG of `lines` (each a terminal row with its escape sequences), `title` its accessible name. */
export function screenSvg(lines, { title }) {
  const rows = lines.map((line) => trimmed(Anser.ansiToJson(line, { json: true, remove_empty: true })));
  const columns = Math.max(1, ...rows.map((chunks) => chunks.reduce((n, c) => n + width(c.content), 0)));
  const w = Math.ceil(columns * CELL_WIDTH + 2 * PADDING);
  const h = rows.length * LINE_HEIGHT + 2 * PADDING;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" rx="6" fill="${BACKGROUND}"/>`,
    `<g font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="${FONT_SIZE}" xml:space="preserve">`,
  ];
  rows.forEach((chunks, i) => {
    const y = PADDING + i * LINE_HEIGHT;
    let column = 0;
    const spans = [];
    for (const c of chunks) {
      const x = at(PADDING + column * CELL_WIDTH);
      if (c.bg)
        out.push(
          `<rect x="${x}" y="${y}" width="${at(width(c.content) * CELL_WIDTH)}" height="${LINE_HEIGHT}" fill="${rgb(c.bg)}"/>`,
        );
      const style = [
        `fill="${c.fg ? rgb(c.fg) : FOREGROUND}"`,
        c.decorations.includes("bold") ? 'font-weight="bold"' : "",
        c.decorations.includes("italic") ? 'font-style="italic"' : "",
        c.decorations.includes("dim") ? 'opacity="0.6"' : "",
      ].filter(Boolean);
      spans.push(`<tspan x="${x}" ${style.join(" ")}>${escapeXml(c.content)}</tspan>`);
      column += width(c.content);
    }
    out.push(`<text y="${y + FONT_SIZE}">${spans.join("")}</text>`);
  });
  out.push("</g>", "</svg>");
  return `${out.join("\n")}\n`;
}
