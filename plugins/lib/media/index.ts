// The media library's public surface (see README.md): yt-dlp info dicts → rows,
// covers, captions and subtitle converters, ffmpeg and yt-dlp argument arrays,
// YouTube ids, image sizes, what a failed yt-dlp run means, and the programs'
// profiles (their guards) the kernel runs them by. Everything here is pure.
export * from './schemas.ts'
export * from './info-dict.ts'
export * from './covers.ts'
export * from './captions.ts'
export * from './frames.ts'
export * from './ytdlp-args.ts'
export * from './youtube-url.ts'
export * from './image-size.ts'
export * from './facebook-page.ts'
export * from './ytdlp-failures.ts'
export * from './programs.ts'
