-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "columns" TEXT;
ALTER TABLE "jobs" ADD COLUMN "heartbeat_at" DATETIME;
ALTER TABLE "jobs" ADD COLUMN "results_path" TEXT NOT NULL DEFAULT 'tool-run';
