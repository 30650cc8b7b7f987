// Where notes live. Two implementations behind one interface.
export interface Note {
  id: string;
  title: string;
  body: string;
}

export interface NoteStorage {
  save(note: Note): void;
  load(id: string): Note | undefined;
}

export class MemoryStorage implements NoteStorage {
  private notes = new Map<string, Note>();

  save(note: Note): void {
    this.notes.set(note.id, note);
  }

  load(id: string): Note | undefined {
    return this.notes.get(id);
  }
}

export class ReadOnlyStorage implements NoteStorage {
  constructor(private inner: NoteStorage) {}

  save(_note: Note): void {
    throw new Error("read-only storage");
  }

  load(id: string): Note | undefined {
    return this.inner.load(id);
  }
}
