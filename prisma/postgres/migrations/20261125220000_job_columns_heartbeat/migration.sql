-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "columns" TEXT,
ADD COLUMN "heartbeat_at" TIMESTAMP(3),
ADD COLUMN "results_path" TEXT NOT NULL DEFAULT 'tool-run';
