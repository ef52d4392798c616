// The media tools' shared run code (see README.md): the dl_* and covers
// factories, the platform link patterns, the settings, the yt-dlp info runner,
// the platforms' health (GET /api/media/status).
export * from './platforms.ts'
export * from './settings.ts'
export * from './ytdlp-info.ts'
export * from './capability.ts'
export * from './media-tool.ts'
export * from './download-tool.ts'
export * from './covers-tool.ts'
export * from './page-videos.ts'
export * from './stored-image.ts'
export * from './platform-health.ts'
export * from './media-status-view.ts'
