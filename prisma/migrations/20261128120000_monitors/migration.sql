-- Monitors (core/monitors): a saved tool call plus a schedule; its runs are jobs
-- (jobs.monitor_id), its baseline (monitor_items) outlives their rows, each tick
-- is recorded once (monitor_ticks), and each run's changes are kept with the run.

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "monitor_id" TEXT;
ALTER TABLE "jobs" ADD COLUMN "monitor_changes" TEXT;

-- CreateTable
CREATE TABLE "monitors" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "params" TEXT NOT NULL,
    "schedule" TEXT NOT NULL,
    "webhook" TEXT,
    "paused_at" DATETIME,
    "paused_reason" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "next_run_at" DATETIME,
    "last_run_id" TEXT,
    "baseline_run_id" TEXT,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "monitors_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "monitor_items" (
    "monitor_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "identity" TEXT NOT NULL,
    "watched" TEXT NOT NULL,

    PRIMARY KEY ("monitor_id", "run_id", "seq"),
    CONSTRAINT "monitor_items_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "monitor_ticks" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "monitor_id" TEXT NOT NULL,
    "tick" TEXT NOT NULL,
    "scheduled_for" DATETIME NOT NULL,
    "trigger" TEXT NOT NULL,
    "job_id" TEXT,
    "skipped" TEXT,
    "created_at" DATETIME NOT NULL,
    CONSTRAINT "monitor_ticks_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "monitor_changes" (
    "job_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "identity" TEXT NOT NULL,
    "data" TEXT NOT NULL,

    PRIMARY KEY ("job_id", "seq"),
    CONSTRAINT "monitor_changes_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "jobs_monitor_id_created_at_idx" ON "jobs"("monitor_id", "created_at");

-- CreateIndex
CREATE INDEX "monitors_account_id_created_at_idx" ON "monitors"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "monitors_next_run_at_idx" ON "monitors"("next_run_at");

-- CreateIndex
CREATE UNIQUE INDEX "monitor_ticks_monitor_id_tick_key" ON "monitor_ticks"("monitor_id", "tick");

-- CreateIndex
CREATE INDEX "monitor_ticks_monitor_id_created_at_idx" ON "monitor_ticks"("monitor_id", "created_at");
