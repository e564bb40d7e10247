CREATE TABLE `publish_lock` (
	`id` integer PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`token` text NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`acquired_at` text NOT NULL,
	`expires_at` text NOT NULL
);
