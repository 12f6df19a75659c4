/**
 * Just enough POSIX shell reading to find the commands a Bash tool call ran: split a command
 * line into simple commands (on `;`, `&&`, `||`, `|`, `&`, newlines and parentheses) and each
 * into words with quotes removed. `$(…)` and backquote substitutions stay verbatim inside
 * their word, and heredoc bodies are skipped (their text is not a command). Pure.
 */

/** Index just past the `)` matching the `(` at `open`, honouring quotes, nesting and heredocs. */
function skipParen(s: string, open: number): number {
  let depth = 0;
  let i = open;
  const heredocs: string[] = [];
  while (i < s.length) {
    const c = s[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const j = s.indexOf("'", i + 1);
      i = j < 0 ? s.length : j + 1;
      continue;
    }
    if (c === '"') {
      i = skipDouble(s, i);
      continue;
    }
    if (c === "<" && s[i + 1] === "<" && s[i + 2] !== "<") {
      const h = readHeredocDelimiter(s, i);
      if (h) {
        heredocs.push(h.delimiter);
        i = h.end;
        continue;
      }
    }
    if (c === "\n" && heredocs.length > 0) {
      i = skipHeredocBodies(s, i + 1, heredocs);
      heredocs.length = 0;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return s.length;
}

/** Index just past the closing `"` of the double-quoted string opening at `open`. */
function skipDouble(s: string, open: number): number {
  let i = open + 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "\\") i += 2;
    else if (c === '"') return i + 1;
    else if (c === "$" && s[i + 1] === "(") i = skipParen(s, i + 1);
    else if (c === "`") {
      const j = s.indexOf("`", i + 1);
      i = j < 0 ? s.length : j + 1;
    } else i++;
  }
  return s.length;
}

function readHeredocDelimiter(s: string, at: number): { delimiter: string; end: number } | null {
  const m = /^<<-?[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w-]*))/.exec(s.slice(at, at + 80));
  if (!m) return null;
  return { delimiter: (m[1] ?? m[2] ?? m[3] ?? "").trim(), end: at + m[0].length };
}

/** From the start of the line after a heredoc operator, skip each pending body up to its delimiter line. */
function skipHeredocBodies(s: string, from: number, delimiters: string[]): number {
  let i = from;
  for (const d of delimiters) {
    for (;;) {
      if (i >= s.length) return s.length;
      const nl = s.indexOf("\n", i);
      const line = s.slice(i, nl < 0 ? s.length : nl);
      i = nl < 0 ? s.length : nl + 1;
      if (line.trim() === d) break;
    }
  }
  return i;
}

/** Simple commands of a command line, each as its words (quotes removed). */
export function parseShell(cmd: string): string[][] {
  const segments: string[][] = [];
  let words: string[] = [];
  let cur = "";
  let inWord = false;
  const heredocs: string[] = [];
  const endWord = () => {
    if (inWord) words.push(cur);
    cur = "";
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  let i = 0;
  while (i < cmd.length) {
    const c = cmd[i]!;
    if (c === "\\") {
      if (cmd[i + 1] === "\n") i += 2;
      else {
        cur += cmd[i + 1] ?? "";
        inWord = true;
        i += 2;
      }
      continue;
    }
    if (c === "'") {
      const j = cmd.indexOf("'", i + 1);
      const end = j < 0 ? cmd.length : j;
      cur += cmd.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      const end = skipDouble(cmd, i);
      cur += unescapeDouble(cmd.slice(i + 1, cmd[end - 1] === '"' ? end - 1 : end));
      inWord = true;
      i = end;
      continue;
    }
    if (c === "$" && cmd[i + 1] === "(") {
      const end = skipParen(cmd, i + 1);
      cur += cmd.slice(i, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === "`") {
      const j = cmd.indexOf("`", i + 1);
      const end = j < 0 ? cmd.length : j + 1;
      cur += cmd.slice(i, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === "#" && !inWord) {
      const nl = cmd.indexOf("\n", i);
      i = nl < 0 ? cmd.length : nl;
      continue;
    }
    if (c === "<" && cmd[i + 1] === "<" && cmd[i + 2] !== "<") {
      const h = readHeredocDelimiter(cmd, i);
      if (h) {
        endWord();
        heredocs.push(h.delimiter);
        i = h.end;
        continue;
      }
    }
    if (c === "\n") {
      endSegment();
      i = heredocs.length > 0 ? skipHeredocBodies(cmd, i + 1, heredocs) : i + 1;
      heredocs.length = 0;
      continue;
    }
    if (c === ";" || c === "|" || c === "&" || c === "(" || c === ")" || c === "{" || c === "}") {
      // `2>&1`, `&>` and `>&` are redirections, not separators.
      if (c === "&" && (cmd[i - 1] === ">" || cmd[i + 1] === ">")) {
        cur += c;
        inWord = true;
        i++;
        continue;
      }
      if ((c === "{" || c === "}") && inWord) {
        cur += c;
        i++;
        continue;
      }
      endSegment();
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      endWord();
      i++;
      continue;
    }
    cur += c;
    inWord = true;
    i++;
  }
  endSegment();
  return segments;
}

function unescapeDouble(s: string): string {
  return s.replace(/\\([\\"$`])/g, "$1").replace(/\\\n/g, "");
}

/** Body of the first heredoc in a text such as `$(cat <<'EOF'\nmessage\nEOF\n)`; null when none. */
export function heredocBody(text: string): string | null {
  const m = /<<-?[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w-]*))[^\n]*\n/.exec(text);
  if (!m) return null;
  const delimiter = (m[1] ?? m[2] ?? m[3] ?? "").trim();
  const lines = text.slice(m.index + m[0].length).split("\n");
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === delimiter) return out.join("\n");
    out.push(line);
  }
  return out.join("\n");
}

const WRAPPERS = new Set([
  "sudo",
  "env",
  "command",
  "time",
  "nice",
  "nohup",
  "exec",
  "builtin",
  "caffeinate",
]);

/**
 * The words of a simple command without leading `VAR=value` assignments and wrappers such
 * as `sudo`, `env`, `time` or `timeout 30`.
 */
export function stripPrefixes(words: readonly string[]): string[] {
  let i = 0;
  for (;;) {
    const w = words[i];
    if (w === undefined) break;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (WRAPPERS.has(w)) {
      i++;
      while (words[i]?.startsWith("-")) i++;
    } else if (w === "timeout" || w === "gtimeout") {
      i++;
      while (words[i]?.startsWith("-")) i++;
      i++; // the duration
    } else break;
  }
  return words.slice(i);
}

/** Shells that take a command string: `bash -c "…"`, `powershell -Command "…"`, `cmd /c …`. */
export function nestedScript(words: readonly string[]): string | null {
  const name = programName(words[0] ?? "");
  if (["bash", "sh", "zsh", "dash"].includes(name)) {
    const i = words.findIndex((w, k) => k > 0 && /^-[a-z]*c[a-z]*$/.test(w));
    return i > 0 ? (words[i + 1] ?? null) : null;
  }
  if (name === "powershell" || name === "pwsh") {
    const i = words.findIndex((w, k) => k > 0 && /^-(?:c|command)$/i.test(w));
    return i > 0 ? words.slice(i + 1).join(" ") : null;
  }
  if (name === "cmd") {
    const i = words.findIndex((w, k) => k > 0 && /^\/[ck]$/i.test(w));
    return i > 0 ? words.slice(i + 1).join(" ") : null;
  }
  return null;
}

/** `./node_modules/.bin/jest` → `jest`, `C:\\Python\\python.exe` → `python`. */
export function programName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.replace(/\.(?:exe|cmd|bat|ps1)$/i, "").toLowerCase();
}

/**
 * Every simple command in a command line, prefixes stripped, descending into `bash -c`,
 * `powershell -Command` and similar nested scripts (bounded depth).
 */
export function simpleCommands(cmd: string, depth = 0): string[][] {
  const out: string[][] = [];
  for (const seg of parseShell(cmd)) {
    const words = stripPrefixes(seg);
    if (words.length === 0) continue;
    const nested = depth < 3 ? nestedScript(words) : null;
    if (nested !== null) out.push(...simpleCommands(nested, depth + 1));
    else out.push(words);
  }
  return out;
}
