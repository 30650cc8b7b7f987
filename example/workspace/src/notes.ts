import type { Note, NoteStorage } from "./storage";
import { slugify, validateTitle } from "./text";

export class NoteService {
  constructor(private storage: NoteStorage) {}

  addNote(title: string, body: string): Note {
    validateTitle(title);
    const note = { id: slugify(title), title, body };
    this.storage.save(note);
    return note;
  }

  renameNote(id: string, title: string): Note {
    const note = this.storage.load(id);
    if (!note) throw new Error(`no note ${id}`);
    validateTitle(title);
    const renamed = { ...note, title };
    this.storage.save(renamed);
    return renamed;
  }
}
