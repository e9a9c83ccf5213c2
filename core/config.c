/* config.c: being written */
