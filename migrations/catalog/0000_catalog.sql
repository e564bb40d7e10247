CREATE TABLE `items` (
	`round` integer NOT NULL,
	`ordinal` integer NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`class` text NOT NULL,
	`category` text NOT NULL,
	`keywords` text NOT NULL,
	PRIMARY KEY(`round`, `ordinal`)
);
--> statement-breakpoint
CREATE INDEX `items_round_id` ON `items` (`round`,`id`);--> statement-breakpoint
CREATE TABLE `rounds` (
	`round` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`manifest` text NOT NULL,
	`updated_at` text NOT NULL
);
