/** The worker thread of src/capture/plan-ahead.ts: the entry it runs from the checkout; src/cli.ts loads it in the binary. */
import { workerData } from "node:worker_threads";
import { servePlans } from "./plan-ahead.ts";

servePlans(workerData);
