export function validateTitle(title: string): void {
  if (title.trim().length === 0) throw new Error("empty title");
  if (title.length > 200) throw new Error("title too long");
}

export function slugify(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}
