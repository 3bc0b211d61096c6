// Runs the firmware scenarios (scenarios.py) under MicroPython's WebAssembly port and
// prints their transcript: node run.mjs REPOSITORY
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const repo = process.argv[2];
const lines = [];
const mp = await loadMicroPython({
  stdout: (text) => lines.push(text),
  stderr: (text) => lines.push("stderr: " + text),
});
for (const dir of ["/firmware", "/board"]) mp.FS.mkdir(dir);
const files = {
  "/firmware/__init__.py": "firmware/__init__.py",
  "/firmware/protocol.py": "firmware/protocol.py",
  "/firmware/box.py": "firmware/box.py",
  "/firmware/pico.py": "firmware/pico.py",
  "/board/machine.py": "tests/firmware/board/machine.py",
  "/board/scenarios.py": "tests/firmware/board/scenarios.py",
};
for (const [to, from] of Object.entries(files)) {
  mp.FS.writeFile(to, readFileSync(join(repo, from)));
}
let status = 0;
try {
  mp.runPython("import sys\nsys.path.insert(0, '/board')\nsys.path.insert(0, '/')\n" +
               "import scenarios\n");
} catch (error) {
  lines.push("MicroPython failed: " + error.message);
  status = 1;
}
process.stdout.write(lines.map((line) => line + "\n").join(""));
process.exit(status);
