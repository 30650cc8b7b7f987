import { NoteService } from "./notes";
import { MemoryStorage } from "./storage";

export function main(): void {
  const service = new NoteService(new MemoryStorage());
  const note = service.addNote("Hello CodeGraph", "first note");
  service.renameNote(note.id, "Hello again");
}
