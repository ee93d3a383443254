<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>CommandLine</name>
    <message numerus="yes">
        <source>Only one project folder can be opened at a time; got %n.</source>
        <translation>
            <numerusform>一次只能打开一个项目文件夹；实际给出了 %n 个。</numerusform>
        </translation>
    </message>
    <message>
        <source>Usage: %1 [options] [PROJECT_DIR]

Tuneframe studio: build video datasets and fine-tune video diffusion models.

Arguments:
  PROJECT_DIR    a project folder (one holding project.sqlite) to open

Options:
  -h, --help     show this help and exit
  -v, --version  show the version and exit

Settings are read from $TUNEFRAME_CONFIG_DIR when it is set.
</source>
        <translation>用法：%1 [选项] [PROJECT_DIR]

Tuneframe 工作室：构建视频数据集并微调视频扩散模型。

参数：
  PROJECT_DIR    要打开的项目文件夹（包含 project.sqlite 的文件夹）

选项：
  -h, --help     显示此帮助并退出
  -v, --version  显示版本并退出

设置了 $TUNEFRAME_CONFIG_DIR 时，从该位置读取设置。
</translation>
    </message>
</context>
<context>
    <name>DatasetPage</name>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>The clips and captions you train on</source>
        <translation>用于训练的视频片段及其描述</translation>
    </message>
    <message>
        <source>No clips in this project yet</source>
        <translation>此项目中还没有视频片段</translation>
    </message>
    <message>
        <source>Import a folder of video clips to start your dataset. Each clip then gets a caption, and the clips you accept become the training set.</source>
        <translation>导入一个包含视频片段的文件夹，开始构建数据集。随后为每个片段撰写描述，您采纳的片段将组成训练集。</translation>
    </message>
</context>
<context>
    <name>GalleryPage</name>
    <message>
        <source>Gallery</source>
        <translation>画廊</translation>
    </message>
    <message>
        <source>Validation videos from your training runs</source>
        <translation>训练运行生成的验证视频</translation>
    </message>
    <message>
        <source>No validation videos yet</source>
        <translation>还没有验证视频</translation>
    </message>
    <message>
        <source>Validation videos will appear here during training: each time a run checks its progress, the videos it generates from your prompts are added to this page.</source>
        <translation>训练期间验证视频会显示在这里：每当训练运行检查进度时，根据您的提示词生成的视频都会添加到此页面。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Settings Were Reset</source>
        <translation>设置已重置</translation>
    </message>
    <message>
        <source>Could Not Open Project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Open Project Folder</source>
        <translation>打开项目文件夹</translation>
    </message>
    <message>
        <source>About Tuneframe</source>
        <translation>关于 Tuneframe</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Tuneframe %1&lt;/h3&gt;&lt;p&gt;A desktop studio for building video datasets and fine-tuning video diffusion models on them.&lt;/p&gt;&lt;p&gt;Training runs in a separate engine process, so a crash or an out-of-memory error in training never takes your project with it.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Tuneframe %1&lt;/h3&gt;&lt;p&gt;用于构建视频数据集并在其上微调视频扩散模型的桌面工作室。&lt;/p&gt;&lt;p&gt;训练在独立的引擎进程中运行，因此训练中的崩溃或显存不足错误绝不会连累您的项目。&lt;/p&gt;&lt;p&gt;基于 Qt %2 构建。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Clear Menu</source>
        <translation>清除菜单(&amp;C)</translation>
    </message>
    <message>
        <source>No Recent Projects</source>
        <translation>没有最近的项目</translation>
    </message>
    <message>
        <source>&amp;Close Project</source>
        <translation>关闭项目(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Dataset</source>
        <translation>数据集(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Gallery</source>
        <translation>画廊(&amp;G)</translation>
    </message>
    <message>
        <source>T&amp;heme</source>
        <translation>主题(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Tuneframe</source>
        <translation>关于 Tuneframe(&amp;A)</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Gallery</source>
        <translation>画廊</translation>
    </message>
    <message>
        <source>Project: %1 — %2</source>
        <translation>项目：%1 — %2</translation>
    </message>
    <message>
        <source>No project open</source>
        <translation>未打开项目</translation>
    </message>
</context>
<context>
    <name>NewProjectDialog</name>
    <message>
        <source>The project will be created in %1</source>
        <translation>项目将创建于 %1</translation>
    </message>
    <message>
        <source>Choose Where to Create the Project</source>
        <translation>选择创建项目的位置</translation>
    </message>
    <message>
        <source>New Project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <source>A project is a folder for your clips, captions and training runs. Tuneframe creates a new folder with the project&apos;s name.</source>
        <translation>项目是存放视频片段、描述和训练运行的文件夹。Tuneframe 会以项目名称新建一个文件夹。</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>For example: Ocean waves</source>
        <translation>例如：海浪</translation>
    </message>
    <message>
        <source>&amp;Location:</source>
        <translation>位置(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Type a name for the project.</source>
        <translation>请输入项目名称。</translation>
    </message>
    <message>
        <source>A project name cannot contain any of these characters: %1</source>
        <translation>项目名称不能包含以下任何字符：%1</translation>
    </message>
    <message>
        <source>Choose a name other than “%1”.</source>
        <translation>请选择“%1”以外的名称。</translation>
    </message>
    <message>
        <source>Choose where to create the project.</source>
        <translation>请选择创建项目的位置。</translation>
    </message>
    <message>
        <source>The location “%1” does not exist. Choose an existing folder.</source>
        <translation>位置“%1”不存在。请选择一个已存在的文件夹。</translation>
    </message>
    <message>
        <source>You cannot create folders in “%1”. Choose a location you can write to.</source>
        <translation>您无法在“%1”中创建文件夹。请选择一个您有写入权限的位置。</translation>
    </message>
    <message>
        <source>“%1” already exists in this location and is not empty. Choose another name.</source>
        <translation>此位置已存在“%1”且不为空。请换一个名称。</translation>
    </message>
</context>
<context>
    <name>Project</name>
    <message>
        <source>A project needs a name. Type a name for it.</source>
        <translation>项目需要名称。请为它输入一个名称。</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder. Choose a new or empty folder for the project.</source>
        <translation>“%1”是文件而不是文件夹。请为项目选择一个新的或空的文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” already holds a Tuneframe project. Open it with File &gt; Open Project…, or choose another folder.</source>
        <translation>文件夹“%1”中已有一个 Tuneframe 项目。请通过“文件 &gt; 打开项目…”打开它，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” is not empty. Choose a new or empty folder for the project, so its files stay apart from yours.</source>
        <translation>文件夹“%1”不为空。请为项目选择一个新的或空的文件夹，使项目文件与您的其他文件分开存放。</translation>
    </message>
    <message>
        <source>Could not create the folder “%1”. Choose a location you can write to.</source>
        <translation>无法创建文件夹“%1”。请选择一个您有写入权限的位置。</translation>
    </message>
    <message>
        <source>the cache and runs folders cannot be created</source>
        <translation>无法创建 cache 和 runs 文件夹</translation>
    </message>
    <message>
        <source>Could not create the project in “%1”: %2. Check that the folder is writable and the disk is not full.</source>
        <translation>无法在“%1”中创建项目：%2。请检查该文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
    <message>
        <source>The folder “%1” does not exist. It may have been moved or renamed, or be on a drive that is not connected. Connect the drive, or choose File &gt; Open Project… and select the project&apos;s new location.</source>
        <translation>文件夹“%1”不存在。它可能已被移动或重命名，或位于未连接的驱动器上。请连接该驱动器，或选择“文件 &gt; 打开项目…”并选择项目的新位置。</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder. A Tuneframe project is a folder: choose the folder that contains %2.</source>
        <translation>“%1”是文件而不是文件夹。Tuneframe 项目是一个文件夹：请选择包含 %2 的文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” is not a Tuneframe project: it has no %2. Choose the folder that contains %2, or create a new project with File &gt; New Project….</source>
        <translation>文件夹“%1”不是 Tuneframe 项目：其中没有 %2。请选择包含 %2 的文件夹，或通过“文件 &gt; 新建项目…”创建新项目。</translation>
    </message>
    <message>
        <source>The project folder “%1” is read-only. Tuneframe saves your work into the project, so make the folder and its %2 writable, or copy the project to a folder you own and open the copy.</source>
        <translation>项目文件夹“%1”是只读的。Tuneframe 会把您的工作保存到项目中，因此请让该文件夹及其中的 %2 可写，或将项目复制到您拥有的文件夹并打开副本。</translation>
    </message>
    <message>
        <source>the database is empty</source>
        <translation>数据库为空</translation>
    </message>
    <message>
        <source>The project database “%1” cannot be read (%2). Restore %3 from a backup, or create a new project.</source>
        <translation>无法读取项目数据库“%1”（%2）。请从备份恢复 %3，或创建新项目。</translation>
    </message>
    <message>
        <source>The project in “%1” was saved by a newer version of Tuneframe (project format %2; this version reads formats up to %3). Update Tuneframe to open it.</source>
        <translation>“%1”中的项目由更新版本的 Tuneframe 保存（项目格式 %2；此版本最高只能读取格式 %3）。请更新 Tuneframe 后再打开。</translation>
    </message>
    <message>
        <source>Could not upgrade the project in “%1” to this version&apos;s format (%2). Check that the folder is writable and the disk is not full, then open it again.</source>
        <translation>无法将“%1”中的项目升级到此版本的格式（%2）。请检查该文件夹是否可写、磁盘是否已满，然后重新打开。</translation>
    </message>
    <message>
        <source>the database refused write-ahead logging (journal mode %1)</source>
        <translation>数据库拒绝启用预写日志（日志模式为 %1）</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Could not read the settings file %1 (%2), so Tuneframe started with default settings. Check the file&apos;s permissions.</source>
        <translation>无法读取设置文件 %1（%2），Tuneframe 已使用默认设置启动。请检查该文件的权限。</translation>
    </message>
    <message>
        <source>it does not hold a JSON object</source>
        <translation>文件内容不是 JSON 对象</translation>
    </message>
    <message>
        <source>its schemaVersion is not a whole number</source>
        <translation>其中的 schemaVersion 不是整数</translation>
    </message>
    <message>
        <source>Your settings file could not be read (%1), so Tuneframe started with default settings. The unreadable file was kept as %2.</source>
        <translation>无法读取您的设置文件（%1），Tuneframe 已使用默认设置启动。无法读取的文件已保留为 %2。</translation>
    </message>
    <message>
        <source>Your settings file %1 could not be read (%2) or moved aside, so Tuneframe started with default settings and will replace it.</source>
        <translation>无法读取您的设置文件 %1（%2），也无法将其移到一旁，Tuneframe 已使用默认设置启动，并将替换该文件。</translation>
    </message>
    <message>
        <source>the folder cannot be created</source>
        <translation>无法创建该文件夹</translation>
    </message>
    <message>
        <source>Could not save settings to %1: %2. Check that the folder is writable and the disk is not full.</source>
        <translation>无法将设置保存到 %1：%2。请检查该文件夹是否可写，以及磁盘是否已满。</translation>
    </message>
</context>
<context>
    <name>StudioPage</name>
    <message>
        <source>No project open</source>
        <translation>未打开项目</translation>
    </message>
    <message>
        <source>A project is a folder that holds your clips, captions and training runs. Create a new project, or open one you made before.</source>
        <translation>项目是存放视频片段、描述和训练运行的文件夹。请新建一个项目，或打开您之前创建的项目。</translation>
    </message>
    <message>
        <source>New Project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <source>Open Project…</source>
        <translation>打开项目…</translation>
    </message>
</context>
<context>
    <name>TrainPage</name>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Fine-tune a model on your dataset</source>
        <translation>在您的数据集上微调模型</translation>
    </message>
    <message>
        <source>No accepted dataset yet</source>
        <translation>还没有已采纳的数据集</translation>
    </message>
    <message>
        <source>Training needs an accepted dataset first. On the Dataset page, import clips, caption them and accept the ones to learn from; then come back here to start a run.</source>
        <translation>训练需要先有已采纳的数据集。请在“数据集”页面导入片段、撰写描述并采纳要用于学习的片段，然后回到这里开始训练运行。</translation>
    </message>
</context>
</TS>
