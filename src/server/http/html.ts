// The few HTML pages the server serves to a person's browser (an order's approve page, an
// invoice's payer view): escaping and the page around a body.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A complete page: `title` is escaped here, `body` is HTML the caller escaped; `style` is the page's CSS. */
export function htmlPage(title: string, body: string, style: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${style}</style>
</head><body>${body}</body></html>
`;
}
