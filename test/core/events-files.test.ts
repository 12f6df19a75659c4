import { type Case, call, extractCases } from "../helpers/events.ts";

const cases: Case[] = [
  // files
  [
    "Edit with a patch",
    call(
      "Edit",
      { file_path: "/p/src/a.ts", old_string: "a", new_string: "b" },
      { text: "ok", s: { filePath: "/p/src/a.ts", structuredPatch: [{ lines: ["-a", "+b", "+c"] }] } },
    ),
    ["file_edit"],
    /^Edited \/p\/src\/a\.ts \(\+2 −1\)$/,
  ],
  [
    "Edit without structured result counts lines of the strings",
    call("Edit", { file_path: "/p/a.ts", old_string: "x", new_string: "y\nz" }, { text: "updated" }),
    ["file_edit"],
    /\(\+2 −1\)/,
  ],
  [
    "MultiEdit",
    call(
      "MultiEdit",
      {
        file_path: "/p/b.ts",
        edits: [
          { old_string: "a", new_string: "b" },
          { old_string: "c", new_string: "d" },
        ],
      },
      { text: "ok" },
    ),
    ["file_edit"],
    /2 edits/,
  ],
  [
    "NotebookEdit",
    call("NotebookEdit", { notebook_path: "/p/n.ipynb", new_source: "x", cell_id: "c1" }, { text: "ok" }),
    ["file_edit"],
    /notebook \/p\/n\.ipynb \(replace cell c1\)/,
  ],
  [
    "Write that created (structured type)",
    call("Write", { file_path: "/p/new.ts", content: "a\nb\n" }, { text: "whatever", s: { type: "create" } }),
    ["file_create"],
    /^Created \/p\/new\.ts \(2 lines\)$/,
  ],
  [
    "Write that replaced (structured type)",
    call("Write", { file_path: "/p/old.ts", content: "a" }, { text: "whatever", s: { type: "update" } }),
    ["file_edit"],
    /^Rewrote \/p\/old\.ts/,
  ],
  [
    "Write with originalFile null is a create",
    call(
      "Write",
      { file_path: "/p/x.ts", content: "a" },
      { text: "", s: { filePath: "/p/x.ts", originalFile: null } },
    ),
    ["file_create"],
  ],
  [
    "Write with an originalFile is an update",
    call(
      "Write",
      { file_path: "/p/x.ts", content: "a" },
      { text: "", s: { filePath: "/p/x.ts", originalFile: "old" } },
    ),
    ["file_edit"],
  ],
  [
    "Write known only from its result text",
    call("Write", { file_path: "/p/y.ts", content: "a" }, { text: "File created successfully at: /p/y.ts" }),
    ["file_create"],
  ],
  [
    "Edit that failed",
    call("Edit", { file_path: "/p/a.ts" }, { text: "String to replace not found", error: true }),
    ["error"],
    /^Edit failed: \/p\/a\.ts — String to replace not found$/,
  ],
  ["Edit without a result yet", call("Edit", { file_path: "/p/a.ts" }), []],
  ["Read", call("Read", { file_path: "/p/a.ts" }, { text: "content" }), []],
  [
    "Read that failed",
    call("Read", { file_path: "/p/a.ts" }, { text: "File does not exist.", error: true }),
    ["error"],
  ],
];

extractCases(cases);
