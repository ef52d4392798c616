-- Files as results (core/artifacts): job_artifacts (never written by a released tool) becomes
-- artifacts, with the owning account and an optional digest, and jobs keep their tier (file caps)
-- and their uploaded file.

-- DropForeignKey
ALTER TABLE "job_artifacts" DROP CONSTRAINT "job_artifacts_job_id_fkey";

-- DropTable
DROP TABLE "job_artifacts";

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "tier" TEXT NOT NULL DEFAULT 'registered',
ADD COLUMN "upload" TEXT;

-- CreateTable
CREATE TABLE "artifacts" (
    "id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "artifacts_job_id_idx" ON "artifacts"("job_id");

-- CreateIndex
CREATE INDEX "artifacts_account_id_idx" ON "artifacts"("account_id");

-- AddForeignKey
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
